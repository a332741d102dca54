import factory

from annotation.models import (
    Ability,
    Benchmark,
    Case,
    Criterion,
    Response,
    RubricVersion,
    Scenario,
    System,
)


class BenchmarkFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Benchmark
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"bench-{n}")
    name = factory.LazyAttribute(lambda o: f"Benchmark {o.slug}")


class ScenarioFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Scenario

    benchmark = factory.SubFactory(BenchmarkFactory)
    primary = "职场心理"
    secondary = factory.Sequence(lambda n: f"场景{n}")


class CaseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Case

    benchmark = factory.SubFactory(BenchmarkFactory)
    external_id = factory.Sequence(lambda n: f"case{n:03d}")
    position = factory.Sequence(lambda n: n)
    dialogue = factory.LazyFunction(
        lambda: [
            {"role": "A", "content": "我和室友又吵架了。"},
            {"role": "B", "content": "又是因为打扫卫生吗？"},
            {"role": "A", "content": "是的，我真的受够了。"},
        ]
    )
    difficulty = Case.Difficulty.NORMAL
    scenario = factory.SubFactory(ScenarioFactory, benchmark=factory.SelfAttribute("..benchmark"))


class RubricVersionFactory(factory.django.DjangoModelFactory):
    """A rubric version with `criteria` criteria: weights cycle through +3, -5, +2,
    and the last one is the catastrophic criterion."""

    class Meta:
        model = RubricVersion
        skip_postgeneration_save = True

    case = factory.SubFactory(CaseFactory)
    number = 1
    source = RubricVersion.Source.IMPORT
    content_hash = factory.Sequence(lambda n: f"{n:064d}")
    note = "imported"

    @factory.post_generation
    def criteria(self, create, extracted, **kwargs):
        count = 4 if extracted is None else extracted
        labels = ["情绪感知", "言语表达", "好奇心"]
        abilities = {a.label: a for a in Ability.objects.filter(label__in=[*labels, "其他"])}
        rows = [
            Criterion(
                rubric_version=self,
                position=i + 1,
                ability=abilities[labels[i % 3]],
                weight=[3, -5, 2][i % 3],
                text=f"标准 {i + 1}：回应{['点出情绪', '说教', '提问'][i % 3]}",
            )
            for i in range(count - 1)
        ]
        rows.append(
            Criterion(
                rubric_version=self,
                position=count,
                ability=abilities["其他"],
                weight=None,
                text="没有回应用户，而是以用户的身份说话",
                is_catastrophic=True,
            )
        )
        Criterion.objects.bulk_create(rows)


class SystemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = System
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"SecretModel-{n}")


class ResponseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Response

    system = factory.SubFactory(SystemFactory)
    case = factory.SubFactory(CaseFactory)
    text = "听起来你真的很累了。能多说说发生了什么吗？"
    source = Response.Source.IMPORT
