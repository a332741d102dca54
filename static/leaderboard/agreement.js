// Agreement per ability: bars for the point estimate, floating bars for the 95% interval,
// a dashed line at the gate's threshold, and groups too small to read drawn in grey.
const thresholdLine = {
  id: "thresholdLine",
  afterDatasetsDraw(chart, _args, options) {
    if (options.value === null || options.value === undefined) return;
    const { ctx, chartArea, scales } = chart;
    const x = scales.x.getPixelForValue(options.value);
    ctx.save();
    ctx.strokeStyle = "#9b1c1c";
    ctx.lineWidth = 2;
    ctx.setLineDash([6, 4]);
    ctx.beginPath();
    ctx.moveTo(x, chartArea.top);
    ctx.lineTo(x, chartArea.bottom);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = "#9b1c1c";
    ctx.font = "12px sans-serif";
    ctx.textAlign = x > chartArea.right - 140 ? "right" : "left";
    ctx.fillText(options.label, x + (ctx.textAlign === "left" ? 4 : -4), chartArea.top + 12);
    ctx.restore();
  },
};

function drawAgreementChart(canvas, data) {
  const small = data.units.map((n) => n < data.small);
  const solid = small.map((s) => (s ? "#8a8f98" : "#1f5fbf"));
  const light = small.map((s) => (s ? "rgba(138,143,152,.3)" : "rgba(31,95,191,.25)"));
  const labels = data.labels.map((label, i) => (small[i] ? `${label} (n = ${data.units[i]})` : label));
  canvas.dataset.threshold = String(data.threshold);
  return new Chart(canvas, {
    type: "bar",
    data: {
      labels,
      datasets: [
        { label: data.legend, data: data.agreement, backgroundColor: solid },
        { label: "95%", data: data.low.map((low, i) => [low, data.high[i]]), backgroundColor: light },
      ],
    },
    options: {
      animation: false, // the numbers, at once (also for screenshots and reduced motion)
      indexAxis: "y",
      scales: { x: { min: 0, max: 1, ticks: { callback: (v) => `${Math.round(v * 100)}%` } } },
      plugins: {
        legend: { position: "bottom" },
        thresholdLine: { value: data.threshold, label: data.threshold_label },
        subtitle: { display: small.some(Boolean), text: data.small_label, position: "bottom" },
      },
    },
    plugins: [thresholdLine],
  });
}

document.addEventListener("DOMContentLoaded", () => {
  const element = document.getElementById("agreement-chart-data");
  if (!element) return;
  drawAgreementChart(document.getElementById("agreement-chart"), JSON.parse(element.textContent));
});
