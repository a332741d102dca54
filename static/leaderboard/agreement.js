// Agreement per ability: bars for the point estimate, floating bars for the 95% interval.
document.addEventListener("DOMContentLoaded", () => {
  const element = document.getElementById("agreement-chart-data");
  if (!element) return;
  const data = JSON.parse(element.textContent);
  new Chart(document.getElementById("agreement-chart"), {
    type: "bar",
    data: {
      labels: data.labels,
      datasets: [
        { label: data.legend, data: data.agreement, backgroundColor: "#1f5fbf" },
        { label: "95%", data: data.low.map((low, i) => [low, data.high[i]]),
          backgroundColor: "rgba(31,95,191,.25)" },
      ],
    },
    options: {
      animation: false, // the numbers, at once (also for screenshots and reduced motion)
      indexAxis: "y",
      scales: { x: { min: 0, max: 1 } },
      plugins: { legend: { position: "bottom" } },
    },
  });
});
