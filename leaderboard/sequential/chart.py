"""The geometry of the round dashboard's chart (no Django): the confidence sequence for
agreement, lower and upper bound after each item used, against the gate's threshold, as
inline SVG coordinates. Items run left to right over the whole round, so the chart also
shows how much of the round the test used."""

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 10, 30
Y_TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)
MOST_POINTS = 400  # a longer path is thinned to this many points (its last one kept)


def _thin(path: list, most: int) -> list[tuple[int, list]]:
    """(item number, [low, high]) for every step of the path, or for evenly spaced steps
    and the last one when there are more than `most`."""
    steps = list(enumerate(path, start=1))
    if len(steps) <= most:
        return steps
    every = -(-len(steps) // most)
    thinned = steps[::every]
    if thinned[-1][0] != len(steps):
        thinned.append(steps[-1])
    return thinned


def sequence_chart(
    path: list, *, threshold: float, items_total: int, decided_at: int | None
) -> dict | None:
    """Points for two polylines (lower and upper bound), the threshold's y, the decision's
    x and the axis ticks; None without a path."""
    if not path:
        return None
    span = max(items_total, len(path), 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(item: float) -> float:
        return round(LEFT + plot_w * item / span, 1)

    def y(value: float) -> float:
        return round(TOP + plot_h * (1.0 - value), 1)

    steps = _thin(path, MOST_POINTS)
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "top": TOP,
        "bottom": HEIGHT - BOTTOM,
        "lower": " ".join(f"{x(i)},{y(low)}" for i, (low, _high) in steps),
        "upper": " ".join(f"{x(i)},{y(high)}" for i, (_low, high) in steps),
        # The band between the bounds: along the upper bound, back along the lower one.
        "lower_reversed": " ".join(f"{x(i)},{y(low)}" for i, (low, _high) in reversed(steps)),
        "threshold_y": y(threshold),
        "decided_x": None if decided_at is None else x(decided_at),
        "used_x": x(len(path)),
        "y_ticks": [{"y": y(v), "label": f"{round(v * 100)}%"} for v in Y_TICKS],
        "x_ticks": [{"x": x(v), "label": str(v)} for v in sorted({0, span // 2, span})],
        "label_y": HEIGHT - 8,
    }
