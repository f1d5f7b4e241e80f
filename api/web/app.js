// Alfred's chat page: plain ES modules, no build step, no CDN. It talks only to the
// HTTP API, as any client does: messages, the turn's event stream (read with fetch, since
// EventSource cannot send the bearer token), answers to pauses, and the kitchen routes,
// whose edits the next turn sees as UI changes.

const $ = (id) => document.getElementById(id);
const TABLES = {
  inventory: { route: "inventory", type: "inv", addable: true },
  shopping_list: { route: "shopping-list", type: "shop", addable: true },
  meal_plans: { route: "meal-plans", type: "meal", addable: false },
  recipes: { route: "recipes", type: "recipe", addable: false },
};
const FINAL = new Set(["context_updated", "error", "expired", "cancelled"]);

const state = {
  token: localStorage.getItem("alfred-token") || "",
  conversation: null,
  table: "inventory",
  mentionRows: [],
  following: null,
  paused: null,
};

// --- the API ------------------------------------------------------------------------------

async function api(path, { method = "GET", body, headers = {} } = {}) {
  const response = await fetch(path, {
    method,
    headers: {
      Authorization: `Bearer ${state.token}`,
      ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
      ...headers,
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const payload = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error(payload?.error?.message || `HTTP ${response.status}`);
    error.status = response.status;
    error.code = payload?.error?.code;
    throw error;
  }
  return payload;
}

// Server-sent events over fetch: yields {id, event, data} as each event arrives.
async function* events(path, lastId) {
  const response = await fetch(path, {
    headers: {
      Authorization: `Bearer ${state.token}`,
      Accept: "text/event-stream",
      ...(lastId ? { "Last-Event-ID": String(lastId) } : {}),
    },
  });
  if (!response.ok) throw new Error(`event stream: HTTP ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields = {};
      for (const line of block.split("\n")) {
        const at = line.indexOf(": ");
        if (at > 0) fields[line.slice(0, at)] = line.slice(at + 2);
      }
      if (fields.event) yield { id: fields.id, event: fields.event, data: JSON.parse(fields.data) };
    }
  }
}

// --- sign in ------------------------------------------------------------------------------

async function signIn(token) {
  state.token = token;
  try {
    await api("/v1/conversations");
  } catch (error) {
    $("signin-error").textContent = error.status === 401 ? "That token is not valid." : error.message;
    return false;
  }
  localStorage.setItem("alfred-token", token);
  $("signin").hidden = true;
  $("app").hidden = false;
  await loadConversations();
  await loadKitchen();
  return true;
}

function signOut() {
  localStorage.removeItem("alfred-token");
  location.reload();
}

// --- conversations ------------------------------------------------------------------------

async function loadConversations() {
  const list = await api("/v1/conversations");
  const ul = $("conversation-list");
  ul.replaceChildren(
    ...list.map((c) => {
      const li = document.createElement("li");
      li.textContent = c.title || "New conversation";
      li.dataset.id = c.id;
      li.classList.toggle("active", c.id === state.conversation);
      li.onclick = () => openConversation(c.id);
      return li;
    }),
  );
  if (!state.conversation && list.length) await openConversation(list[0].id);
}

async function newConversation() {
  const created = await api("/v1/conversations", { method: "POST", body: {} });
  state.conversation = created.id;
  $("transcript").replaceChildren();
  await loadConversations();
  await refreshEntities();
}

async function openConversation(id) {
  state.conversation = id;
  const detail = await api(`/v1/conversations/${id}`);
  const transcript = $("transcript");
  transcript.replaceChildren();
  for (const turn of detail.turns) {
    bubble("user", turn.message);
    if (turn.response) bubble("alfred", turn.response);
  }
  renderEntities(detail.active_entities);
  for (const li of $("conversation-list").children) li.classList.toggle("active", li.dataset.id === id);
  const last = detail.turns.at(-1);
  if (last && !["completed", "failed", "expired", "cancelled"].includes(last.status)) {
    follow(last.id);
  }
}

// --- the transcript -----------------------------------------------------------------------

const MENTION = /@\[([^\]]+)\]\(([a-z_]+):[0-9a-f-]+\)/g;

function bubble(kind, text) {
  const div = document.createElement("div");
  div.className = `bubble ${kind}`;
  setText(div, text || "");
  $("transcript").append(div);
  div.scrollIntoView({ block: "end" });
  return div;
}

function setText(node, text) {
  // Mentions read as chips; everything else is plain text (never HTML).
  node.replaceChildren();
  let last = 0;
  for (const match of text.matchAll(MENTION)) {
    node.append(text.slice(last, match.index));
    const chip = document.createElement("span");
    chip.className = "mention";
    chip.textContent = `@${match[1]}`;
    node.append(chip);
    last = match.index + match[0].length;
  }
  node.append(text.slice(last));
}

// --- a turn -------------------------------------------------------------------------------

async function send(event) {
  event.preventDefault();
  const input = $("message");
  const text = input.value.trim();
  if (!text) return;
  if (!state.conversation) await newConversation();
  const mode = $("mode").value;
  $("chat-error").textContent = "";
  try {
    const turn = await api(`/v1/conversations/${state.conversation}/messages`, {
      method: "POST",
      body: { text, ...(mode ? { mode } : {}) },
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    input.value = "";
    hideMentions();
    if (turn.accepted_input) return resume(); // it answered the open question
    bubble("user", text);
    follow(turn.id);
  } catch (error) {
    $("chat-error").textContent =
      error.code === "turn_in_progress"
        ? "Alfred is still working on the previous message; send this once it has replied."
        : error.message;
  }
}

// A turn's events until it ends, or pauses: a pause holds no stream open; once answered,
// resume() follows on from the pause. When the server stops (`server_closing`), or the
// stream breaks, it reconnects after the last event it saw.
async function follow(turnId, view = { reply: null, plan: null, steps: {}, pieces: 0, lastId: 0 }) {
  state.following = turnId;
  state.paused = null;
  for (;;) {
    let retry = 1000;
    try {
      const path = `/v1/turns/${turnId}/events?stop_at_pause=true`;
      for await (const item of events(path, view.lastId)) {
        if (state.following !== turnId) return;
        if (item.event === "server_closing") {
          notice(view, "The server is stopping; reconnecting…");
          retry = item.data.retry_after * 1000;
          continue;
        }
        if (view.notice) notice(view, "");
        view.lastId = item.id;
        if (item.event === "awaiting_input") {
          // The stream ends at every pause, answered ones too (on a replay): read on past those.
          const turn = await api(`/v1/turns/${turnId}`);
          retry = 0;
          if (turn.pending?.pause_id !== item.data.pause_id) continue;
          handle(turnId, view, item.event, item.data);
          state.paused = { turnId, view };
          return;
        }
        handle(turnId, view, item.event, item.data);
        if (FINAL.has(item.event)) {
          await afterTurn();
          return;
        }
      }
    } catch (error) {
      notice(view, `${error.message}; reconnecting…`);
    }
    await new Promise((resolve) => setTimeout(resolve, retry));
    if (state.following !== turnId) return;
  }
}

function notice(view, text) {
  $("chat-error").textContent = text;
  view.notice = Boolean(text);
}

function resume() {
  if (state.paused) follow(state.paused.turnId, state.paused.view);
}

function handle(turnId, view, event, data) {
  if (event === "thinking" || event === "queued") {
    view.status = view.status || bubble("note", event === "queued" ? "…queued" : "…thinking");
  } else if (event === "plan") {
    view.plan = document.createElement("ol");
    view.plan.className = "plan";
    data.steps.forEach((step, i) => {
      const li = document.createElement("li");
      li.textContent = step.description;
      li.dataset.status = "pending";
      view.steps[i] = li;
      view.plan.append(li);
    });
    $("transcript").append(view.plan);
  } else if (event === "step") {
    if (view.steps[data.step]) view.steps[data.step].dataset.status = "running";
  } else if (event === "step_complete") {
    const li = view.steps[data.step];
    if (li) {
      li.dataset.status = "completed";
      if (data.summary) li.textContent += ` — ${data.summary}`;
    }
  } else if (event === "token" && data.kind === "generate") {
    // A generate step's content as it forms: its names, in a note.
    const names = (data.artifacts || []).map((a) => a.content?.name || a.content?.title).filter(Boolean);
    if (!view.draft) view.draft = bubble("note", "");
    view.draft.textContent = names.length ? `…writing ${names.join(", ")}` : "…writing";
  } else if (event === "token") {
    if (!view.reply) view.reply = bubble("alfred", "");
    if (data.reset) {
      view.text = "";
      view.pieces = 0;
    }
    view.text = (view.text || "") + (data.text || "");
    view.pieces += data.text ? 1 : 0;
    view.reply.dataset.pieces = String(view.pieces);
    view.reply.dataset.take = data.take;
    setText(view.reply, view.text);
  } else if (event === "done") {
    if (!view.reply) view.reply = bubble("alfred", "");
    setText(view.reply, data.response || view.text || "");
    view.reply.dataset.done = "true";
    hidePause();
  } else if (event === "awaiting_input") {
    showPause(turnId, data);
  } else if (event === "error") {
    bubble("note", data.message || "The turn failed.");
    hidePause();
  } else if (event === "expired" || event === "cancelled") {
    bubble("note", `The turn was ${event}.`);
    hidePause();
  }
}

function showPause(turnId, data) {
  const box = $("pause");
  box.replaceChildren();
  const message = document.createElement("div");
  setText(message, data.message || "");
  const actions = document.createElement("div");
  actions.className = "actions";
  const answer = async (body) => {
    for (const b of actions.querySelectorAll("button")) b.disabled = true;
    try {
      await api(`/v1/turns/${turnId}/input`, {
        method: "POST",
        body: { ...body, pause_id: data.pause_id, input_id: crypto.randomUUID() },
      });
      hidePause();
      resume();
    } catch (error) {
      $("chat-error").textContent = error.message;
      for (const b of actions.querySelectorAll("button")) b.disabled = false;
    }
  };
  if (data.kind === "proposal") {
    const confirm = button("Confirm", () => answer({ action: "confirm" }));
    confirm.id = "confirm";
    const reject = button("Reject", () => answer({ action: "reject" }));
    reject.id = "reject";
    actions.append(confirm, reject);
  } else {
    const input = document.createElement("input");
    input.id = "answer";
    input.placeholder = "Your answer";
    const send = button("Answer", () => input.value.trim() && answer({ action: "answer", text: input.value.trim() }));
    send.id = "send-answer";
    actions.append(input, send);
  }
  box.append(message, actions);
  box.hidden = false;
  box.dataset.kind = data.kind;
}

function hidePause() {
  $("pause").hidden = true;
  $("pause").replaceChildren();
}

function button(label, onclick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  b.onclick = onclick;
  return b;
}

async function afterTurn() {
  await Promise.all([refreshEntities(), loadKitchen(), loadConversations()]);
}

// --- what is in context -------------------------------------------------------------------

async function refreshEntities() {
  if (!state.conversation) return renderEntities([]);
  const detail = await api(`/v1/conversations/${state.conversation}`);
  renderEntities(detail.active_entities);
}

function renderEntities(entities) {
  $("entities").replaceChildren(
    ...entities.map((e) => {
      const li = document.createElement("li");
      li.dataset.ref = e.ref;
      li.dataset.action = e.action || "";
      li.append(`${e.label} `);
      const small = document.createElement("small");
      small.textContent = `${e.type} · ${e.action || ""}`;
      li.append(small);
      return li;
    }),
  );
}

// --- the kitchen --------------------------------------------------------------------------

let kitchenLoads = 0;

async function loadKitchen() {
  const load = ++kitchenLoads;
  const shown = state.table;
  const table = TABLES[shown];
  const rows = await api(`/v1/${table.route}?limit=200`);
  if (load !== kitchenLoads) return; // a newer load (another tab, a later turn) renders
  const list = $("kitchen-rows");
  // Never re-render under the user's hands: a quantity being edited keeps its value.
  const editing = document.activeElement?.tagName === "INPUT" && list.contains(document.activeElement);
  if (list.dataset.table === shown && editing) return;
  list.dataset.table = shown;
  list.replaceChildren(...rows.map((row) => kitchenRow(shown, row)));
  $("kitchen-add").hidden = !table.addable;
}

function label(table, row) {
  if (table === "meal_plans") return `${row.date} ${row.meal_type}${row.notes ? ` — ${row.notes}` : ""}`;
  if (table === "tasks") return row.title;
  return row.name;
}

function kitchenRow(table, row) {
  const li = document.createElement("li");
  li.dataset.id = row.id;
  const name = document.createElement("span");
  name.textContent = label(table, row);
  li.append(name);
  if (TABLES[table].addable) {
    const qty = document.createElement("input");
    qty.className = "qty";
    qty.type = "number";
    qty.step = "any";
    qty.min = "0";
    qty.value = row.quantity ?? "";
    qty.title = row.unit || "quantity";
    qty.onchange = async () => {
      const quantity = qty.value === "" ? null : Number(qty.value);
      await api(`/v1/${TABLES[table].route}/${row.id}`, { method: "PATCH", body: { quantity } });
      qty.dataset.saved = "true";
    };
    li.append(qty, ` ${row.unit || ""}`);
  }
  li.append(
    button("✕", async () => {
      await api(`/v1/${TABLES[table].route}/${row.id}`, { method: "DELETE" });
      await loadKitchen();
    }),
  );
  return li;
}

async function addToKitchen(event) {
  event.preventDefault();
  const table = TABLES[state.table];
  const quantity = $("add-quantity").value;
  await api(`/v1/${table.route}`, {
    method: "POST",
    body: {
      name: $("add-name").value.trim(),
      ...(quantity !== "" ? { quantity: Number(quantity) } : {}),
      ...($("add-unit").value.trim() ? { unit: $("add-unit").value.trim() } : {}),
    },
  });
  $("kitchen-add").reset();
  await loadKitchen();
}

// --- @ mentions ---------------------------------------------------------------------------

async function mentionRows() {
  const found = [];
  for (const [table, spec] of Object.entries(TABLES)) {
    const rows = await api(`/v1/${spec.route}?limit=200`);
    for (const row of rows) found.push({ label: label(table, row), type: spec.type, id: row.id });
  }
  return found;
}

async function onMessageInput() {
  const input = $("message");
  const before = input.value.slice(0, input.selectionStart);
  const at = before.match(/@([^@\[\]()]*)$/);
  if (!at) return hideMentions();
  if (!state.mentionRows.length) state.mentionRows = await mentionRows();
  if (input.value.slice(0, input.selectionStart) !== before) return; // a newer keystroke renders
  const wanted = at[1].toLowerCase();
  const matches = state.mentionRows.filter((r) => r.label.toLowerCase().includes(wanted)).slice(0, 12);
  const list = $("mentions");
  list.replaceChildren(
    ...matches.map((row) => {
      const li = document.createElement("li");
      li.textContent = `${row.label} (${row.type})`;
      li.onmousedown = (event) => {
        event.preventDefault();
        // The text as it is now: typing may have gone on while the rows were loading.
        const upto = input.value.slice(0, input.selectionStart);
        const typed = upto.match(/@([^@\[\]()]*)$/);
        const start = typed ? upto.length - typed[0].length : upto.length;
        const token = `@[${row.label}](${row.type}:${row.id}) `;
        input.value = input.value.slice(0, start) + token + input.value.slice(upto.length);
        input.focus();
        hideMentions();
      };
      return li;
    }),
  );
  list.hidden = matches.length === 0;
}

function hideMentions() {
  $("mentions").hidden = true;
}

// --- wiring -------------------------------------------------------------------------------

$("signin-form").onsubmit = (event) => {
  event.preventDefault();
  signIn($("token").value.trim());
};
$("signout").onclick = signOut;
$("new-conversation").onclick = newConversation;
$("composer").onsubmit = send;
$("message").oninput = onMessageInput;
$("kitchen-add").onsubmit = addToKitchen;
for (const tab of $("kitchen-tabs").querySelectorAll("button")) {
  tab.onclick = async () => {
    state.table = tab.dataset.table;
    for (const t of $("kitchen-tabs").children) t.classList.toggle("active", t === tab);
    await loadKitchen();
  };
}
if (state.token) signIn(state.token);
