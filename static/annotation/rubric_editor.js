// The rubric editor says what happens to every change: a weight out of range is flagged
// on its row as it is typed (the server's answer then confirms it), and a save that fails
// is said in the save status instead of leaving the last "Draft saved at" in place.
(function () {
  function editor() {
    return document.getElementById("rubric-editor");
  }

  function weightProblem(input) {
    if (input.validity && input.validity.badInput) return true;
    if (input.value.trim() === "") return false; // the server says whether blank is allowed
    const weight = Number(input.value);
    return !Number.isInteger(weight) || weight < -10 || weight > 10 || weight === 0;
  }

  function showWeight(input) {
    const form = editor();
    const row = input.closest(".editor-row");
    if (!form || !row) return;
    const errors = row.querySelector(".row-errors");
    const local = errors && errors.querySelector("p[data-local]");
    if (weightProblem(input)) {
      const message = form.dataset.weightInvalid.replace("{n}", input.dataset.position);
      input.setAttribute("aria-invalid", "true");
      row.classList.add("invalid");
      if (errors && !local) {
        const p = document.createElement("p");
        p.dataset.local = "1";
        p.textContent = message;
        errors.prepend(p);
      }
      blockPublish(message);
    } else if (local) {
      local.remove();
    }
  }

  function blockPublish(message) {
    const button = document.getElementById("publish-button");
    const reason = document.getElementById("publish-blocked");
    if (button) button.disabled = true;
    if (reason) {
      reason.textContent = message;
      reason.hidden = false;
    }
  }

  function saveFailed(text) {
    const status = document.getElementById("autosave-status");
    if (!status) return;
    status.textContent = text;
    status.classList.add("not-saved");
    status.setAttribute("role", "alert");
  }

  function fromEditor(event) {
    const form = editor();
    const source = event.detail && event.detail.elt;
    return form && source && (source === form || form.contains(source));
  }

  document.addEventListener("input", function (event) {
    if (event.target.matches && event.target.matches("#rubric-editor input[name=weight]")) {
      showWeight(event.target);
    }
  });

  // 4xx answers are swapped rather than treated as errors (base.html's htmx config), and
  // the autosave swaps nothing: every answer that is not a success is said here.
  document.body.addEventListener("htmx:afterRequest", function (event) {
    if (!fromEditor(event)) return;
    const xhr = event.detail.xhr;
    if (!xhr || xhr.status === 0) {
      saveFailed(editor().dataset.offline);
    } else if (xhr.status >= 400) {
      saveFailed(editor().dataset.saveFailed.replace("{status}", xhr.status));
    }
  });

  document.body.addEventListener("htmx:timeout", function (event) {
    if (fromEditor(event)) saveFailed(editor().dataset.offline);
  });

  // Kept for browsers that validate the form anyway: never drop a change without a word.
  document.body.addEventListener("htmx:validation:failed", function (event) {
    const input = event.detail && event.detail.elt;
    if (input && input.matches && input.matches("input[name=weight]")) showWeight(input);
  });
})();
