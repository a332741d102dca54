// The annotation page: keyboard verdicts, autosave (server, with a local copy for lost
// connections) and active-time counting.
(function () {
  const form = document.getElementById("annotate-form");
  if (!form) return;
  const rows = Array.from(form.querySelectorAll(".vote-row"));
  const status = document.getElementById("autosave-status");
  const storageKey = "concord-draft-" + form.dataset.assignment;
  const activeInput = form.querySelector("input[name=active_seconds]");
  // Absent on a submitted item: an autosave never changes submitted work, so a revision's
  // draft is kept in this browser until it is submitted.
  const autosaveUrl = form.dataset.autosaveUrl;
  let unsentSeconds = 0;
  let lastActivity = Date.now();
  let saveTimer = null;
  // Once the form is submitting, nothing else is sent: a save arriving after the submit
  // would only be refused by the server.
  let submitting = false;

  // Active time: seconds with the page visible and some activity in the last minute.
  ["keydown", "mousemove", "click", "scroll", "input"].forEach((type) =>
    document.addEventListener(type, () => (lastActivity = Date.now()), { passive: true })
  );
  setInterval(() => {
    if (document.visibilityState === "visible" && Date.now() - lastActivity < 60000) {
      unsentSeconds += 1;
    }
  }, 1000);

  function snapshot() {
    const data = {};
    new FormData(form).forEach((value, key) => {
      if (key !== "csrfmiddlewaretoken") data[key] = value;
    });
    return data;
  }

  function restoreLocalCopy() {
    const saved = localStorage.getItem(storageKey);
    if (!saved) return;
    const { values } = JSON.parse(saved);
    Object.entries(values).forEach(([name, value]) => {
      const fields = form.querySelectorAll(`[name="${CSS.escape(name)}"]`);
      fields.forEach((field) => {
        if (field.type === "radio") field.checked = field.value === value;
        else if (field.name !== "base_revision" && field.name !== "active_seconds") field.value = value;
      });
    });
    markAnswered();
  }

  async function save() {
    if (submitting) return;
    const values = snapshot();
    localStorage.setItem(storageKey, JSON.stringify({ values, at: Date.now() }));
    if (!autosaveUrl) {
      status.textContent = status.dataset.local || "";
      return;
    }
    const body = new FormData(form);
    body.set("active_seconds", String(unsentSeconds));
    const sentSeconds = unsentSeconds;
    try {
      const response = await fetch(autosaveUrl, { method: "POST", body });
      if (response.status === 400 || response.status === 409) {
        // Refused (a note too long, an item already submitted): sending it again would
        // change nothing, so say why and keep the answers in this browser.
        const answer = await response.json().catch(() => ({}));
        status.textContent = answer.error || status.dataset.offline || "…";
        status.classList.add("error");
        return;
      }
      if (!response.ok) throw new Error(String(response.status));
      unsentSeconds = Math.max(0, unsentSeconds - sentSeconds);
      localStorage.removeItem(storageKey);
      status.textContent = status.dataset.saved || "✓";
      status.classList.remove("error");
    } catch (error) {
      if (submitting) return;
      status.textContent = status.dataset.offline || "…";
      status.classList.add("error");
      clearTimeout(saveTimer);
      saveTimer = setTimeout(save, 5000); // keep trying; the local copy survives a reload
    }
  }

  function scheduleSave() {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(save, 600);
  }

  function markAnswered() {
    rows.forEach((row) => {
      row.classList.toggle("answered", !!row.querySelector("input[type=radio]:checked"));
    });
  }

  // The criterion the expert was last on: where focus goes back after a panel, and what
  // a verdict key answers when focus sits on one of the page's own buttons.
  let lastRow = null;
  rows.forEach((row) => row.addEventListener("focusin", () => (lastRow = row)));

  function focusRow(index, options) {
    const row = rows[Math.max(0, Math.min(rows.length - 1, index))];
    if (row) row.focus(options);
  }

  function currentIndex() {
    const row = document.activeElement && document.activeElement.closest(".vote-row");
    if (row) return rows.indexOf(row);
    // Focus on the page itself or on a tool button (Guidelines, Keyboard, the response):
    // the keys still act on the criterion the expert was on.
    const away = document.activeElement;
    if (lastRow && (!away || away === document.body || (away.matches("button") && !form.contains(away)))) {
      return rows.indexOf(lastRow);
    }
    return -1;
  }

  function choose(value) {
    const index = currentIndex();
    if (index < 0) return;
    const radio = rows[index].querySelector(`input[type=radio][value="${value}"]`);
    if (!radio || radio.disabled) return;
    radio.checked = true;
    markAnswered();
    scheduleSave();
    focusRow(index + 1);
  }

  function togglePanel(id, show) {
    const panel = document.getElementById(id);
    const open = show === undefined ? panel.hidden : show;
    if (open === !panel.hidden) return;
    panel.hidden = !open;
    const button = document.querySelector(`[aria-controls="${id}"]`);
    if (button) button.setAttribute("aria-expanded", String(open));
    if (open) {
      panel.querySelector("button").focus();
    } else {
      // Back to the criterion the expert was on, however the panel was opened (a click
      // leaves focus on the button that opened it, where 1, 0 and Enter would do nothing).
      backToCriterion();
    }
  }

  function backToCriterion() {
    if (lastRow) lastRow.focus({ preventScroll: isInView(lastRow) });
    else focusRow(firstUnanswered());
  }

  function isInView(element) {
    const box = element.getBoundingClientRect();
    return box.bottom > 0 && box.top < window.innerHeight;
  }

  function firstUnanswered() {
    const index = rows.findIndex((row) => !row.querySelector("input[type=radio]:checked"));
    return index < 0 ? 0 : index;
  }

  // On one column (a tablet, a zoomed window) the response scrolls away above the criteria:
  // the bar over the criteria shows it again, one tap (or r) away.
  const peekButton = document.getElementById("show-response");
  const peek = document.getElementById("response-peek");
  function togglePeek(show) {
    if (!peekButton || !peek) return;
    const open = show === undefined ? peek.hidden : show;
    peek.hidden = !open;
    peekButton.setAttribute("aria-expanded", String(open));
    peekButton.textContent = open ? peekButton.dataset.hide : peekButton.dataset.show;
    if (open && lastRow) {
      // The criterion just below the response, neither under it nor pushed off the screen.
      const bar = document.getElementById("response-bar").getBoundingClientRect();
      window.scrollBy(0, lastRow.getBoundingClientRect().top - bar.height - 8);
    }
  }

  // Side by side, the dialogue and the response fit the window from wherever their column
  // starts, so the response is in view beside every criterion, at the top of the page too.
  const left = document.querySelector(".annotate-left");
  function fitLeftColumn() {
    if (!left) return;
    if (getComputedStyle(left).position !== "sticky") {
      left.style.maxHeight = "";
      return;
    }
    const top = Math.max(left.getBoundingClientRect().top, 8);
    left.style.maxHeight = Math.max(window.innerHeight - top - 8, 160) + "px";
  }
  let fitting = false;
  function fitSoon() {
    if (fitting) return;
    fitting = true;
    requestAnimationFrame(() => { fitting = false; fitLeftColumn(); });
  }
  window.addEventListener("scroll", fitSoon, { passive: true });
  window.addEventListener("resize", fitSoon);
  fitLeftColumn();

  document.addEventListener("keydown", (event) => {
    const typing = event.target.matches("textarea, input[type=text], select");
    if (typing) {
      if (event.key === "Escape") {
        const row = event.target.closest(".vote-row");
        event.target.blur();
        if (row) row.focus();
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    switch (event.key) {
      case "1": case "y": choose("1"); break;
      case "0": case "n": choose("0"); break;
      case "j": case "ArrowDown": focusRow(currentIndex() + 1); break;
      case "k": case "ArrowUp": focusRow(currentIndex() - 1); break;
      case "e": {
        const index = currentIndex();
        if (index >= 0) rows[index].querySelector("textarea").focus();
        break;
      }
      case "?": togglePanel("help"); break;
      case "r": togglePeek(); break;
      case "Escape": togglePanel("help", false); togglePanel("guidelines", false); return;
      case "Enter":
        if (event.target.matches("button, a, summary")) return;
        event.preventDefault();
        form.requestSubmit();
        return;
      default: return;
    }
    event.preventDefault();
  });

  form.addEventListener("change", () => { markAnswered(); scheduleSave(); });
  form.addEventListener("input", scheduleSave);
  form.addEventListener("submit", () => {
    submitting = true;
    clearTimeout(saveTimer);
    activeInput.value = String(unsentSeconds);
    unsentSeconds = 0; // sent with the submit, so never again by the unload beacon
    localStorage.removeItem(storageKey);
  });
  document.getElementById("open-help").addEventListener("click", () => togglePanel("help"));
  document.getElementById("open-guidelines").addEventListener("click", () => togglePanel("guidelines"));
  document.querySelectorAll(".close-panel").forEach((button) =>
    button.addEventListener("click", () => togglePanel(button.closest(".side-panel").id, false))
  );
  window.addEventListener("beforeunload", () => {
    // Leaving without submitting: send the seconds not sent yet. Never after a submit,
    // whose request already carries them (the beacon would reach the server after it).
    if (submitting || !autosaveUrl || unsentSeconds <= 0) return;
    const body = new FormData(form);
    body.set("active_seconds", String(unsentSeconds));
    unsentSeconds = 0;
    navigator.sendBeacon(autosaveUrl, body);
  });

  if (peekButton) peekButton.addEventListener("click", () => togglePeek());

  restoreLocalCopy();
  markAnswered();
  // The item opens at the top, with the dialogue, the response and any message in view;
  // the first unanswered criterion has focus, so the keys work at once.
  focusRow(firstUnanswered(), { preventScroll: true });
})();
