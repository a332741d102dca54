"""The cost/agreement chart of the judge selection page, as the coordinates of an inline SVG
(no Django): each judge with a known cost is a point at (cost per 1,000 responses,
agreement), with its 95% interval as a vertical bar, and the gate's threshold as a line.
The page draws it server-side; the table beside it holds the same numbers."""

import math
from dataclasses import dataclass

WIDTH, HEIGHT = 640, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 150, 16, 44  # room for the axes' labels and the judges' names


@dataclass(frozen=True)
class ChartJudge:
    label: str
    cost: float  # per 1,000 responses
    agreement: float
    low: float | None
    high: float | None
    passed: bool
    cheapest: bool


def _nice_step(span: float, ticks: int = 5) -> float:
    """A round step (1, 2 or 5 times a power of ten) giving about `ticks` intervals."""
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _number(value: float, step: float) -> str:
    decimals = max(0, -math.floor(math.log10(step))) if step < 1 else 0
    return f"{value:.{decimals}f}"


def cost_agreement_chart(judges: list[ChartJudge], threshold: float) -> dict | None:
    """The chart's geometry, or None when no judge has a known cost to place."""
    if not judges:
        return None
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    span = max(max(j.cost for j in judges) * 1.05, 1e-9)
    step = _nice_step(span)
    x_max = step * max(1, math.ceil(span / step))
    lowest = min([threshold, *(j.low if j.low is not None else j.agreement for j in judges)])
    y_step = 0.1 if lowest >= 0.55 else 0.2
    y_min = max(0.0, round(math.floor((lowest - 0.05) / y_step) * y_step, 10))

    def x(cost: float) -> float:
        return round(LEFT + plot_w * cost / x_max, 1)

    def y(share: float) -> float:
        return round(TOP + plot_h * (1.0 - (share - y_min) / (1.0 - y_min)), 1)

    x_ticks = [
        {"x": x(i * step), "text": _number(i * step, step)} for i in range(round(x_max / step) + 1)
    ]
    y_ticks = [
        {"y": y(y_min + i * y_step), "text": f"{round(100 * (y_min + i * y_step))}%"}
        for i in range(round((1.0 - y_min) / y_step) + 1)
    ]
    points = [
        {
            "label": j.label,
            "cx": x(j.cost),
            "cy": y(j.agreement),
            "y_low": None if j.low is None else y(j.low),
            "y_high": None if j.high is None else y(j.high),
            "passed": j.passed,
            "cheapest": j.cheapest,
            "label_x": x(j.cost) + 9,
            "square_x": x(j.cost) - 5,
            "square_y": y(j.agreement) - 5,
        }
        for j in sorted(judges, key=lambda j: (j.cost, -j.agreement))
    ]
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "top": TOP,
        "bottom": HEIGHT - BOTTOM,
        "y_label_x": LEFT - 6,
        "x_label_y": HEIGHT - BOTTOM + 16,
        "x_title_y": HEIGHT - 6,
        "mid_x": LEFT + plot_w / 2,
        "mid_y": TOP + plot_h / 2,
        "x_ticks": x_ticks,
        "y_ticks": y_ticks,
        "threshold_y": y(threshold),
        "points": points,
    }
