// The annotation page: shows one unit (a pair, or a TaPaCo set) at a time and sends answers to
// the JSON API beside it (api/...). Relative URLs keep every request under this annotator's link.
"use strict";

const state = { mode: null, unit: null, busy: false, marked: new Set() };
const $ = (id) => document.getElementById(id);

async function call(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const response = await fetch("api/" + path, options);
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function say(message) { $("status").textContent = message; }

function showProgress(progress) {
  const share = progress.total ? (100 * progress.done) / progress.total : 100;
  $("progress-fill").style.width = share + "%";
  $("progress").setAttribute("aria-valuemax", progress.total);
  $("progress").setAttribute("aria-valuenow", progress.done);
  $("progress-text").textContent = `${progress.done} / ${progress.total} done`;
}

function showOnly(section) {
  for (const id of ["pair-view", "set-view", "finished"]) $(id).hidden = id !== section;
}

function showPair(unit, total) {
  $("pair-position").textContent = `Pair ${unit.index + 1} of ${total} · ${unit.id}`;
  $("sentence1").textContent = unit.sentences[0];
  $("sentence2").textContent = unit.sentences[1];
  for (const button of document.querySelectorAll("#pair-view .answer")) {
    button.classList.toggle("chosen", button.dataset.answer === unit.answer);
  }
  showOnly("pair-view");
}

function showSet(unit, total) {
  $("set-position").textContent =
    `Set ${unit.index + 1} of ${total} · set ${unit.id} · ${unit.members.length} sentences`;
  state.marked = new Set(unit.answer || []);
  const list = $("members");
  list.replaceChildren();
  unit.members.forEach((member) => {
    const item = document.createElement("li");
    item.dir = "auto";
    item.textContent = member.text;
    item.dataset.id = member.id;
    item.classList.toggle("outlier", state.marked.has(member.id));
    item.setAttribute("aria-pressed", String(state.marked.has(member.id)));
    item.addEventListener("click", () => toggleMember(item));
    list.append(item);
  });
  showOnly("set-view");
}

function toggleMember(item) {
  const id = item.dataset.id;
  if (state.marked.has(id)) state.marked.delete(id); else state.marked.add(id);
  item.classList.toggle("outlier", state.marked.has(id));
  item.setAttribute("aria-pressed", String(state.marked.has(id)));
}

async function showFinished(progress) {
  state.unit = null;
  showOnly("finished");
  $("agreement").hidden = true;
  if (!progress.everyone_done) {
    $("finished-text").textContent = "You have answered every one. The agreement between the "
      + "two annotators appears here once the other annotator is done too (this page checks "
      + "every 5 seconds).";
    return;
  }
  $("finished-text").textContent = "Both annotators are done.";
  showAgreement(await call("agreement"));
}

function showAgreement(agreement) {
  const table = $("agreement-table");
  table.replaceChildren();
  const head = table.createTHead().insertRow();
  const counts = table.createTBody().insertRow();
  for (const column of agreement.columns) {
    const th = document.createElement("th");
    th.textContent = column.group ? `${column.group}: ${column.title}` : column.title;
    head.append(th);
    counts.insertCell().textContent = column.count;
  }
  const kappa = agreement.kappa === null ? "undefined" : agreement.kappa.toFixed(3);
  $("agreement-summary").textContent = agreement.mode === "pairs"
    ? `${agreement.kept} of ${agreement.total} pairs kept. Cohen's kappa ${kappa}.`
    : `${agreement.kept} of ${agreement.total} sets with full agreement. Cohen's kappa ${kappa}.`;
  $("agreement").hidden = false;
}

async function show(result) {
  showProgress(result.progress);
  state.unit = result.unit;
  if (!result.unit) return showFinished(result.progress);
  if (state.mode === "pairs") showPair(result.unit, result.progress.total);
  else showSet(result.unit, result.progress.total);
}

async function act(work) {
  if (state.busy) {
    say("Still saving the previous answer: press again.");
    return;
  }
  state.busy = true;
  document.body.classList.add("busy");
  try {
    say("");
    await show(await work());
  } catch (error) {
    say(error.message);
  } finally {
    state.busy = false;
    document.body.classList.remove("busy");
  }
}

function position() { return state.unit ? state.unit.index : -1; }

const actions = {
  answer: (answer) => act(() => call("answer", { unit: state.unit.id, answer })),
  saveSet: () => act(() => call("answer", { unit: state.unit.id, answer: [...state.marked] })),
  undo: () => act(() => call("undo", {})),
  skip: () => act(() => call(`unit?after=${position()}`)),
  back: () => act(async () => {
    const { progress } = await call("info");
    const index = state.unit ? state.unit.index - 1 : progress.total - 1;
    return call(`unit?index=${(index + progress.total) % progress.total}`);
  }),
};

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key;
  if (key === "u") actions.undo();
  else if (key === "ArrowLeft") actions.back();
  else if (key === "ArrowRight" && state.unit) actions.skip();
  else if (!state.unit) return;
  else if (state.mode === "pairs" && ["1", "2", "3", "4"].includes(key)) actions.answer(key);
  else if (state.mode === "pairs" && key === "t") actions.answer("trash");
  else if (state.mode === "sets" && /^[1-9]$/.test(key)) {
    const item = $("members").children[Number(key) - 1];
    if (item) toggleMember(item);
  } else if (state.mode === "sets" && key === "Enter") actions.saveSet();
  else return;
  event.preventDefault();
}

function wire() {
  // A clicked button gives up the focus: Enter or Space must not answer the next unit unseen.
  const onClick = (button, action) => button.addEventListener("click", () => {
    button.blur();
    action();
  });
  for (const button of document.querySelectorAll("#pair-view .answer")) {
    onClick(button, () => actions.answer(button.dataset.answer));
  }
  for (const name of ["undo", "skip", "back"]) {
    for (const button of document.querySelectorAll("." + name)) onClick(button, actions[name]);
  }
  onClick($("save-set"), actions.saveSet);
  $("guidelines-toggle").addEventListener("click", () => {
    const panel = $("guidelines");
    panel.hidden = !panel.hidden;
    $("guidelines-toggle").setAttribute("aria-expanded", String(!panel.hidden));
  });
  document.addEventListener("keydown", onKey);
  setInterval(() => {
    if (!state.unit && !state.busy && !$("finished").hidden && $("agreement").hidden) {
      call("info").then((info) => info.progress.everyone_done && showFinished(info.progress))
        .catch((error) => say(error.message));
    }
  }, 5000);
}

async function start() {
  wire();
  try {
    const info = await call("info");
    state.mode = info.mode;
    const what = info.mode === "pairs" ? "pairs" : "sets";
    $("title").textContent = `Paraphrase ${what}${info.language ? " · " + info.language : ""}`;
    $("who").textContent = `annotator ${info.annotator}`;
    $("pair-guidelines").hidden = info.mode !== "pairs";
    $("set-guidelines").hidden = info.mode !== "sets";
    await act(() => call("unit?after=-1"));
  } catch (error) {
    say(error.message);
  }
}

start();
