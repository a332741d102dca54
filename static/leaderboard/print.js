// Printing: open the "undefined values" notes (closed details do not print) and redraw the
// charts at the paper's width, then back to the screen's after printing.
(() => {
  const charts = () => (window.Chart ? Object.values(Chart.instances) : []);
  window.addEventListener("beforeprint", () => {
    document.querySelectorAll("details").forEach((d) => { d.dataset.wasOpen = d.open; d.open = true; });
    charts().forEach((chart) => chart.resize(680, 420));
  });
  window.addEventListener("afterprint", () => {
    document.querySelectorAll("details").forEach((d) => { d.open = d.dataset.wasOpen === "true"; });
    charts().forEach((chart) => chart.resize());
  });
  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-print]")) window.print();
  });
})();
