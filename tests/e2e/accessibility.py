"""axe-core, injected into a page by the browser tests (the application never serves it)."""

from pathlib import Path

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core-4.14.1.min.js"
BLOCKING = ("serious", "critical")


def axe_violations(page, *, settled: bool = True) -> list[dict]:
    """The serious and critical WCAG 2.x A/AA (and best-practice) violations on the page as
    it is once its htmx requests have settled, as a reader sees it; nothing is clicked.
    `settled=False` reads it as it is now (a test holding a request to check its indicator
    waits for the indicator itself)."""
    if settled:
        # A fragment loading on "load" fades its indicator in; mid-fade its contrast is a
        # frame of animation, not the page, so axe waits until no request is pending. htmx
        # sends those requests when the document is parsed, before the load event that
        # page.goto waits for, so each is marked by then.
        page.wait_for_function(
            "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"
        )
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


# Every control a person can point at, and the pill label that wraps each verdict radio.
CONTROLS = (
    "button, input:not([type=hidden]), select, textarea, a[href], summary, "
    "label:has(input[type=radio])"
)


def covered_controls(page) -> list[str]:
    """The visible controls something else is drawn over: each is scrolled into view and
    the element the browser finds at its centre (the centre of each of its boxes, for a link
    that wraps) must be the control, inside it, or its own label. Controls in a closed
    <details>, a hidden panel or visually hidden are skipped."""
    return page.evaluate(
        """(selector) => {
          const covered = [];
          for (const el of document.querySelectorAll(selector)) {
            if (el.closest('[hidden], .visually-hidden, .skip-link')) continue;
            // display: none, visibility: hidden, or the folded part of a closed <details>
            if (!el.checkVisibility({visibilityProperty: true, contentVisibilityAuto: true}))
              continue;
            el.scrollIntoView({block: 'center', inline: 'center'});
            // A link wrapped over two lines is two boxes, and the centre of the rectangle
            // around both may lie beside the text: each box's own centre is tested.
            for (const r of el.getClientRects()) {
              if (r.width < 1 || r.height < 1) continue;
              const x = r.left + r.width / 2, y = r.top + r.height / 2;
              const hit = document.elementFromPoint(x, y);
              const own = hit && (hit === el || el.contains(hit)
                || Array.from(el.labels || []).some(label => label.contains(hit)));
              if (!own) {
                const name = e => e ? e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
                  + (e.className && typeof e.className === 'string' ? '.' + e.className.trim()
                     .split(/\\s+/).join('.') : '') : 'nothing';
                covered.push(`${name(el)} "${(el.textContent || el.name || '').trim()
                  .slice(0, 40)}" under ${name(hit)} at (${Math.round(x)}, ${Math.round(y)})`);
              }
            }
          }
          window.scrollTo(0, 0);
          return covered;
        }""",
        CONTROLS,
    )
