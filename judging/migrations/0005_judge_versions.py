"""Judge configurations become series of immutable versions. Every run gets the version
whose settings it was started with (read from its own settings snapshot and prompt), and
each configuration's current settings become its current version."""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from judging import judge_settings


def _prompt(prompt):
    if prompt is None:
        return None
    return judge_settings.prompt_settings(
        name=prompt.name,
        version=prompt.version,
        kind=prompt.kind,
        language=prompt.language,
        system_text=prompt.system_text,
        user_text=prompt.user_text,
    )


def _version(JudgeVersion, config, values: dict, prompt, numbers: dict):
    settings_ = judge_settings.judge_settings(**values, prompt=_prompt(prompt))
    fingerprint = judge_settings.settings_fingerprint(settings_)
    found = JudgeVersion.objects.filter(config=config, fingerprint=fingerprint).first()
    if found is not None:
        return found
    numbers[config.pk] = numbers.get(config.pk, 0) + 1
    return JudgeVersion.objects.create(
        config=config,
        number=numbers[config.pk],
        fingerprint=fingerprint,
        prompt=prompt,
        note="",
        **values,
    )


def versions_from_history(apps, schema_editor):
    JudgeConfig = apps.get_model("judging", "JudgeConfig")
    JudgeRun = apps.get_model("judging", "JudgeRun")
    JudgeVersion = apps.get_model("judging", "JudgeVersion")
    numbers: dict[int, int] = {}
    for config in JudgeConfig.objects.order_by("pk"):
        for run in JudgeRun.objects.filter(config=config).select_related("prompt").order_by("pk"):
            snapshot = run.settings_snapshot or {}
            imported = run.source == "imported"
            values = {
                "source": judge_settings.IMPORTED if imported else judge_settings.LLM,
                "model": snapshot.get("model", config.model),
                "base_url": "" if imported else snapshot.get("base_url", config.base_url),
                "temperature": snapshot.get("temperature", config.temperature),
                "seed": snapshot.get("seed", config.seed),
                "max_output_tokens": snapshot.get("max_output_tokens", config.max_output_tokens),
                "structured_output": snapshot.get("structured_output", config.structured_output),
            }
            prompt = None if imported else run.prompt
            if imported:
                values.update(temperature=0.0, seed=None, max_output_tokens=4096)
                values["structured_output"] = True
            run.judge_version = _version(JudgeVersion, config, values, prompt, numbers)
            run.save(update_fields=["judge_version"])
        only_imported = (
            JudgeRun.objects.filter(config=config).exists()
            and not JudgeRun.objects.filter(config=config).exclude(source="imported").exists()
        )
        if only_imported:
            current = JudgeRun.objects.filter(config=config).order_by("-pk").first().judge_version
        else:
            current = _version(
                JudgeVersion,
                config,
                {
                    "source": judge_settings.LLM,
                    "model": config.model,
                    "base_url": config.base_url,
                    "temperature": config.temperature,
                    "seed": config.seed,
                    "max_output_tokens": config.max_output_tokens,
                    "structured_output": config.structured_output,
                },
                config.prompt,
                numbers,
            )
        config.current_version = current
        config.save(update_fields=["current_version"])


class Migration(migrations.Migration):
    dependencies = [
        ("judging", "0004_stored_leaderboard"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="JudgeVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField(verbose_name="version")),
                (
                    "source",
                    models.CharField(
                        choices=[
                            ("llm", "LLM called by Concord"),
                            ("imported", "verdicts imported from a file"),
                        ],
                        default="llm",
                        max_length=10,
                    ),
                ),
                ("model", models.CharField(max_length=200, verbose_name="model")),
                ("base_url", models.URLField(blank=True, max_length=300, verbose_name="base URL")),
                (
                    "temperature",
                    models.FloatField(
                        default=0.0,
                        validators=[
                            django.core.validators.MinValueValidator(0),
                            django.core.validators.MaxValueValidator(2),
                        ],
                        verbose_name="temperature",
                    ),
                ),
                ("seed", models.IntegerField(blank=True, null=True, verbose_name="seed")),
                (
                    "max_output_tokens",
                    models.PositiveIntegerField(default=4096, verbose_name="max output tokens"),
                ),
                (
                    "structured_output",
                    models.BooleanField(
                        default=True, verbose_name="use structured output (json_schema)"
                    ),
                ),
                (
                    "fingerprint",
                    models.CharField(max_length=64, verbose_name="fingerprint of the settings"),
                ),
                ("note", models.CharField(blank=True, max_length=300, verbose_name="change note")),
                ("created", models.DateTimeField(auto_now_add=True)),
                (
                    "author",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "config",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="versions",
                        to="judging.judgeconfig",
                    ),
                ),
                (
                    "prompt",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="judge_versions",
                        to="judging.prompttemplate",
                    ),
                ),
            ],
            options={
                "verbose_name": "judge version",
                "verbose_name_plural": "judge versions",
                "ordering": ["config", "-number"],
            },
        ),
        migrations.AddConstraint(
            model_name="judgeversion",
            constraint=models.UniqueConstraint(
                fields=("config", "number"), name="judge_version_number"
            ),
        ),
        migrations.AddConstraint(
            model_name="judgeversion",
            constraint=models.UniqueConstraint(
                fields=("config", "fingerprint"), name="judge_version_fingerprint"
            ),
        ),
        migrations.AddField(
            model_name="judgeconfig",
            name="current_version",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="judging.judgeversion",
            ),
        ),
        migrations.AddField(
            model_name="judgerun",
            name="judge_version",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="runs",
                to="judging.judgeversion",
            ),
        ),
        migrations.RunPython(versions_from_history, migrations.RunPython.noop),
    ]
