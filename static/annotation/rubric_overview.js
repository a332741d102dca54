// Draws the criteria-per-ability and per-category bar charts from the page's JSON data.
document.addEventListener("DOMContentLoaded", () => {
  const data = JSON.parse(document.getElementById("rubric-chart-data").textContent);
  const bar = (canvasId, labels, datasets) =>
    new Chart(document.getElementById(canvasId), {
      type: "bar",
      data: { labels, datasets },
      options: { animation: false, indexAxis: "y", responsive: true, plugins: { legend: { position: "bottom" } } },
    });
  bar("ability-chart", data.labels, [
    { label: data.legend.criteria, data: data.criteria, backgroundColor: "#1f5fbf" },
    { label: data.legend.penalties, data: data.penalties, backgroundColor: "#a13d00" },
  ]);
  bar("category-chart", data.categories, [
    { label: data.legend.criteria, data: data.category_counts, backgroundColor: "#146c2e" },
  ]);
});
