"""axe-core, injected into a page by the browser tests (the application never serves it)."""

from pathlib import Path

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core-4.14.1.min.js"
BLOCKING = ("serious", "critical")


def axe_violations(page) -> list[dict]:
    """The serious and critical WCAG 2.x A/AA (and best-practice) violations on the page as
    it is now; pages stay as rendered, nothing is clicked."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # Evaluated by the browser's debugging protocol, which the page's
        # Content-Security-Policy does not govern (a <script> tag it would block).
        page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate(
        """async () => {
          const r = await axe.run(document, {
            runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa',
                                            'wcag22aa', 'best-practice']},
            resultTypes: ['violations'],
          });
          return r.violations.map(v => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html,
                                      summary: n.failureSummary})),
          }));
        }"""
    )
    return [v for v in result if v["impact"] in BLOCKING]


def describe(violations: list[dict]) -> str:
    """A failure message that says which rule, on which element, and why."""
    out = []
    for v in violations:
        out.append(f"[{v['impact']}] {v['id']}: {v['help']}")
        for node in v["nodes"][:8]:
            out.append(f"    {node['target']}  {node['html'][:160]}")
            out.extend(f"        {line}" for line in (node["summary"] or "").splitlines())
        if len(v["nodes"]) > 8:
            out.append(f"    ... and {len(v['nodes']) - 8} more")
    return "\n".join(out)


def horizontal_overflow(page) -> int:
    """How many CSS pixels the document is wider than the window (0 when it fits)."""
    return page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )


def tab_through(page, limit: int = 200) -> list[dict]:
    """Press Tab until every focusable element has had focus once (focus wraps round through
    the browser's own controls back to the top), or `limit` presses: what got focus, in
    order, with the focus outline the browser drew for it."""
    seen = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        info = page.evaluate(
            """() => { const e = document.activeElement;
                 if (e === document.body || e === null) return null;
                 const again = e.hasAttribute('data-tab-seen');
                 e.setAttribute('data-tab-seen', '');
                 const s = getComputedStyle(e);
                 return {again, what: e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
                               + (e.name ? '[name=' + e.name + ']' : ''),
                         outline: s.outlineStyle, width: parseFloat(s.outlineWidth) || 0}; }"""
        )
        if info is None:
            continue
        if info.pop("again"):
            break
        seen.append(info)
    return seen
