"""Judge configurations and their immutable versions: the one place they are created or
changed. A change to any setting that can move a verdict makes a new version (or, for
settings an earlier version already had, makes that version current again); the settings
that only decide how calls are made are edited in place."""

from dataclasses import asdict, dataclass, field, replace
from decimal import Decimal

from django.db import transaction
from django.db.models import Max

from core.audit.services import audit_record
from judging import audit_actions, judge_settings
from judging.endpoints import EndpointRefused, base_url_check, key_variable_check
from judging.models import JudgeConfig, JudgeVersion, PromptTemplate
from judging.models.versions import ensemble_settings
from judging.services.ensemble_settings import ensemble_refusal


class ConfigInvalid(Exception):
    """Refused settings; `errors` maps each field to its message."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors


@dataclass(frozen=True)
class VersionSettings:
    """What a judge version fixes."""

    model: str
    base_url: str = ""
    prompt: PromptTemplate | None = None
    temperature: float = 0.0
    seed: int | None = None
    max_output_tokens: int = 4096
    structured_output: bool = True
    source: str = JudgeVersion.Source.LLM
    # An ensemble (judging.ensemble_vote): `self_consistency(k)` or a panel of versions.
    ensemble: dict | None = None
    examples: tuple = ()

    def as_settings(self) -> dict:
        prompt = self.prompt
        return judge_settings.judge_settings(
            source=self.source,
            model=self.model,
            base_url=self.base_url,
            temperature=self.temperature,
            seed=self.seed,
            max_output_tokens=self.max_output_tokens,
            structured_output=self.structured_output,
            prompt=None
            if prompt is None
            else judge_settings.prompt_settings(
                name=prompt.name,
                version=prompt.version,
                kind=prompt.kind,
                language=prompt.language,
                system_text=prompt.system_text,
                user_text=prompt.user_text,
            ),
            ensemble=ensemble_settings(self.ensemble),
            examples=list(self.examples),
        )


@dataclass(frozen=True)
class CallSettings:
    """How calls are made; never changes a verdict."""

    api_key_env: str = ""
    timeout_seconds: float = 120.0
    max_concurrency: int = 8
    requests_per_minute: int = 0
    max_attempts: int = 5
    backoff_seconds: float = 1.0
    price_prompt_per_1k: Decimal = field(default_factory=lambda: Decimal(0))
    price_completion_per_1k: Decimal = field(default_factory=lambda: Decimal(0))
    is_simulated: bool = False


def version_settings_of(version: JudgeVersion) -> VersionSettings:
    return VersionSettings(
        model=version.model,
        base_url=version.base_url,
        prompt=version.prompt,
        temperature=version.temperature,
        seed=version.seed,
        max_output_tokens=version.max_output_tokens,
        structured_output=version.structured_output,
        source=version.source,
        ensemble=version.ensemble,
        examples=tuple(version.examples or ()),
    )


def call_settings_of(config: JudgeConfig) -> CallSettings:
    return CallSettings(**{name: getattr(config, name) for name in CallSettings.__annotations__})


def _check(settings: VersionSettings, calls: CallSettings) -> None:
    errors: dict[str, str] = {}
    try:
        key_variable_check(calls.api_key_env)
    except EndpointRefused as exc:
        errors["api_key_env"] = str(exc)
    if settings.source == JudgeVersion.Source.LLM:
        try:
            base_url_check(settings.base_url)
        except EndpointRefused as exc:
            errors["base_url"] = str(exc)
    if settings.ensemble:
        message = ensemble_refusal(settings)
        if message:
            errors["ensemble"] = message
    if errors:
        raise ConfigInvalid(errors)


def _version_for(
    config: JudgeConfig, settings: VersionSettings, *, user, note: str
) -> tuple[JudgeVersion, bool]:
    # The config row is locked: two editors saving at once get consecutive numbers, and
    # the same settings saved twice find one version.
    JudgeConfig.objects.select_for_update().filter(pk=config.pk).first()
    fingerprint = judge_settings.settings_fingerprint(settings.as_settings())
    found = JudgeVersion.objects.filter(config=config, fingerprint=fingerprint).first()
    if found is not None:
        return found, False
    latest = JudgeVersion.objects.filter(config=config).aggregate(n=Max("number"))["n"] or 0
    values = asdict(settings)
    values["prompt"] = settings.prompt
    values["examples"] = list(settings.examples)
    version = JudgeVersion.objects.create(
        config=config,
        number=latest + 1,
        fingerprint=fingerprint,
        note=note[:300],
        author=user if getattr(user, "is_authenticated", False) else None,
        **values,
    )
    return version, True


def judge_config_save(
    *,
    name: str,
    settings: VersionSettings,
    calls: CallSettings,
    config: JudgeConfig | None = None,
    user=None,
    note: str = "",
) -> tuple[JudgeConfig, JudgeVersion, bool]:
    """Create the configuration (`config` None) or change it: the call settings in place,
    the verdict settings as the version with exactly these settings, found or made, which
    becomes current. Returns the config, its current version and whether that version is
    new. Raises ConfigInvalid, writing nothing, for a refused key variable or endpoint."""
    _check(settings, calls)
    with transaction.atomic():
        is_new = config is None
        if config is None:
            config = JudgeConfig.objects.create(name=name, **asdict(calls))
            changed = []
        else:
            before = {"name": config.name, **asdict(call_settings_of(config))}
            config.name = name
            for attribute, value in asdict(calls).items():
                setattr(config, attribute, value)
            config.save()
            after = {"name": name, **asdict(calls)}
            changed = sorted(key for key, value in after.items() if before[key] != value)
        version, created = _version_for(config, settings, user=user, note=note)
        switched = config.current_version_id != version.pk
        if switched:
            config.current_version = version
            config.save(update_fields=["current_version"])
        if is_new or changed or switched:
            _audit_config(config, version, user, is_new=is_new, changed=changed, created=created)
    return config, version, created


def _audit_config(config, version, user, *, is_new: bool, changed: list, created: bool) -> None:
    # Names of the changed settings only, never their values: the log is no place to
    # compare key variables or endpoints.
    audit_record(
        actor=user,
        action=(
            audit_actions.JUDGE_CONFIG_CREATED if is_new else audit_actions.JUDGE_CONFIG_CHANGED
        ),
        details={
            "config": config.name,
            "current_version": version.number,
            "new_version": created,
            "model": version.model,
            "changed": changed,
        },
    )


def judge_version_for(
    *, config_name: str, settings: VersionSettings, calls: CallSettings, user=None
) -> JudgeVersion:
    """The command line's entry: the configuration named `config_name` (made if new, its call
    settings updated to these), and its version whose settings equal `settings` exactly,
    found or made, which becomes current."""
    config = JudgeConfig.objects.filter(name=config_name).first()
    _, version, _ = judge_config_save(
        name=config_name, settings=settings, calls=calls, config=config, user=user
    )
    return version


def judge_version_preview(
    *, config_name: str, settings: VersionSettings, calls: CallSettings
) -> JudgeVersion:
    """The version `judge_version_for` would return, without writing anything (a dry run):
    the stored one with these settings, or an unsaved one; its configuration (stored or
    unsaved) carries these call settings in memory only."""
    config = JudgeConfig.objects.filter(name=config_name).first() or JudgeConfig(name=config_name)
    for name, value in asdict(calls).items():
        setattr(config, name, value)
    fingerprint = judge_settings.settings_fingerprint(settings.as_settings())
    if config.pk is not None:
        found = JudgeVersion.objects.filter(config=config, fingerprint=fingerprint).first()
        if found is not None:
            found.config = config
            return found
    latest = (
        JudgeVersion.objects.filter(config=config).aggregate(n=Max("number"))["n"] or 0
        if config.pk is not None
        else 0
    )
    values = asdict(settings)
    values["prompt"] = settings.prompt
    values["examples"] = list(settings.examples)
    return JudgeVersion(config=config, number=latest + 1, fingerprint=fingerprint, **values)


def judge_version_imported(
    *, name: str, user=None, settings: VersionSettings | None = None
) -> JudgeVersion:
    """The version standing for verdicts read from a file under the judge name `name` (one
    per name: nothing was called, so there are no settings to tell runs apart), or, when the
    file records the settings its verdicts were made with (an Inspect log), one per such
    settings. Made if new; it becomes current only for a configuration that had none."""
    if settings is None:
        settings = VersionSettings(model=name)
    settings = replace(settings, source=JudgeVersion.Source.IMPORTED)
    with transaction.atomic():
        config, _ = JudgeConfig.objects.get_or_create(name=name)
        version, _created = _version_for(config, settings, user=user, note="")
        if config.current_version_id is None:
            config.current_version = version
            config.save(update_fields=["current_version"])
    return version
