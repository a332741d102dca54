"""The calibration → held-out lines of `judge_selection`'s text output."""


def _shown(stat: dict | None, form: str) -> str:
    if not stat or stat.get("value") is None:
        return "-"
    return form.format(stat["value"])


def held_out_lines(entries: list[dict]) -> list[str]:
    if not entries:
        return []
    lines = ["calibration -> held-out (each derived version against its parent):"]
    for entry in entries:
        head = f"  {entry['derived']} vs {entry['parent'] or '-'}"
        comparison = entry["comparison"]
        if comparison is None:
            lines.append(f"{head}: no comparison ({entry['reason_text'] or entry['reason']})")
            continue
        bounds = comparison["difference_95"]
        interval = (
            "" if bounds["low"] is None else f" [{bounds['low']:+.1%}, {bounds['high']:+.1%}]"
        )
        cost = entry["cost_per_1000"]
        lines.append(
            f"{head}: {entry['verdict_text']} on {comparison['units']} held-out units, "
            f"difference {_shown(comparison['difference'], '{:+.1%}')}{interval}, "
            f"McNemar p {_shown(comparison['mcnemar_p'], '{:.3g}')}, cost per 1,000 "
            f"{_shown(cost['derived'], '{:.4f}')} vs {_shown(cost['parent'], '{:.4f}')}"
        )
    return lines
