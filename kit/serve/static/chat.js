/* The chat page of `python -m kit serve`: plain JavaScript, no build step, nothing
 * fetched but this server (the page's Content-Security-Policy allows only 'self').
 *
 * Left, the chat: POST /sessions/{id}/messages {"text"} answers with server-sent events
 * (`reply` {"text": a few words} ..., or one `refusal` {"text"}, then `done` {"turn",
 * "refused", "guardrail", "cited"}), read here with fetch + response.body.getReader()
 * and parsed by hand, so the reply grows in its bubble as the words arrive. An error
 * comes back as JSON {"error"} and is shown in the chat. Each message carries its own
 * Idempotency-Key (a random UUID): when the connection drops or the stream is cut off
 * before `done`, the page sends the message again with the same key, and the server
 * answers with the saved reply instead of running the turn twice (a 409 "still
 * running" is waited out for its Retry-After seconds).
 * Right, the context panel: GET /sessions/{id}/context (parts, budget, summary, the
 * verbatim messages, the newest trace events), on load and after each turn, and once
 * more a second later, since the compaction runs after the reply has been sent.
 *
 * Every text from the user or the model is written with textContent or as a text node,
 * never as HTML: `<b>` or `<script>` in a message shows as those characters.
 */
"use strict";

(() => {
  const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;  // the server's rule (kit.serve.service)
  const FIRST_WORDS = 12;        // words of a verbatim message shown in the panel
  const MOVED_SHOWN = 5;         // compaction events shown, newest first
  const SECOND_LOOK = 1000;      // ms after `done`: the compaction has usually committed
  const PALETTE = 6;             // colour classes p0..p5 for parts without their own colour
  const TRIES = 4;               // attempts of one message (same key) before giving up
  const RETRY_PAUSE = 500;       // ms before a retry, times the attempt's number

  const $ = (id) => document.getElementById(id);
  const messages = $("messages"), composer = $("composer"), input = $("text");
  const sendButton = $("send"), sessionInput = $("session");

  let session = "";
  let busy = false;              // a turn is running: one at a time
  let bubbles = 0;               // bubbles made, for data-seq
  let looks = 0;                 // context requests made: only the newest is drawn

  /** A new element: `tag` with class names `classes` (a space-separated string) and,
   * if given, `text` as its textContent. */
  function make(tag, classes, text) {
    const node = document.createElement(tag);
    if (classes) node.className = classes;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /** A random session id: "s-" and 12 hex digits. */
  function randomSession() {
    const bytes = crypto.getRandomValues(new Uint8Array(6));
    return "s-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  /** A new idempotency key for one message: a random UUID (hex digits and "-"). */
  function newKey() {
    if (crypto.randomUUID) return crypto.randomUUID();
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // ---- server-sent events ------------------------------------------------------

  /** A parser of a server-sent event stream: feed(chunk of text) returns the events
   * completed by that chunk, [{event, data}] (data: the `data:` lines joined by "\n").
   * Lines end in "\n" (a "\r" before it is dropped); a blank line ends an event; lines
   * starting with ":" are comments; an event without `event:` is "message". */
  function eventParser() {
    // Linear in the stream: only the new chunk is searched for line breaks, and the
    // pieces of a line that spans chunks are joined once, when its end arrives.
    let pending = [], name = "message", data = [];
    function line(text) {
      if (text.endsWith("\r")) text = text.slice(0, -1);
      if (text === "") {
        const done = data.length ? {event: name, data: data.join("\n")} : null;
        name = "message";
        data = [];
        return done;
      }
      if (text.startsWith(":")) return null;
      const colon = text.indexOf(":");
      const field = colon < 0 ? text : text.slice(0, colon);
      let value = colon < 0 ? "" : text.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") name = value;
      else if (field === "data") data.push(value);
      return null;
    }
    return function feed(chunk) {
      const events = [];
      let start = 0, end;
      while ((end = chunk.indexOf("\n", start)) >= 0) {
        pending.push(chunk.slice(start, end));
        const event = line(pending.join(""));
        pending = [];
        if (event) events.push(event);
        start = end + 1;
      }
      if (start < chunk.length) pending.push(chunk.slice(start));
      return events;
    };
  }


  // ---- the chat ------------------------------------------------------------------

  /** Append a bubble of `kind` (user, pending) with `text`; return it. Its parts:
   * .who (the label), .text (what was said), .meta (turn number, citations). */
  function addBubble(kind, text) {
    const bubble = make("div", `bubble ${kind}`);
    bubble.dataset.seq = String(++bubbles);
    bubble.append(make("span", "who", kind === "user" ? "you" : "assistant"),
                  make("div", "text", text), make("div", "meta"));
    messages.append(bubble);
    scrollDown();
    return bubble;
  }

  const LABELS = {assistant: "assistant", refusal: "refused", error: "error"};

  /** Make the reply bubble a bubble of `kind` (assistant, refusal, error). */
  function settle(bubble, kind) {
    if (bubble.classList.contains(kind)) return;
    bubble.classList.remove("pending", ...Object.keys(LABELS));
    bubble.classList.add(kind);
    bubble.querySelector(".who").textContent = LABELS[kind];
  }

  function showError(bubble, message) {
    settle(bubble, "error");
    bubble.querySelector(".text").textContent = message;
  }

  function note(text) {
    messages.append(make("p", "note", text));
    scrollDown();
  }

  function scrollDown() {
    messages.scrollTop = messages.scrollHeight;
  }

  /** Send `text` as the next turn and stream its reply into a new bubble; a dropped
   * connection or a cut-off stream is retried with the same Idempotency-Key. */
  async function send(text) {
    busy = true;
    sendButton.disabled = sessionInput.disabled = true;
    const asked = addBubble("user", text);
    const reply = addBubble("pending", "");
    reply.classList.add("streaming");
    const key = newKey();
    let problem = "";
    try {
      for (let attempt = 1; attempt <= TRIES; attempt++) {
        if (attempt > 1) {
          await pause(RETRY_PAUSE * (attempt - 1));
          reply.className = "bubble pending streaming";   // start the bubble again
          reply.querySelector(".who").textContent = "assistant";
          reply.querySelector(".text").textContent = "";
        }
        let response;
        try {
          response = await fetch(`/sessions/${encodeURIComponent(session)}/messages`, {
            method: "POST", cache: "no-store", body: JSON.stringify({text}),
            headers: {"Content-Type": "application/json", "Idempotency-Key": key}});
        } catch (err) {
          problem = `the request failed: ${err.message}`;
          continue;                         // the connection dropped: the same key again
        }
        const type = response.headers.get("Content-Type") || "";
        if (response.status === 409 && response.headers.get("Retry-After")) {
          problem = await errorText(response);   // the first attempt is still running
          await pause(1000 * Number(response.headers.get("Retry-After")));
          continue;
        }
        if (!response.ok || !type.startsWith("text/event-stream")) {
          showError(reply, await errorText(response));
          return;
        }
        let done = null;
        try {
          done = await readReply(response, reply);
        } catch (err) { /* the stream broke: retried below */ }
        if (done) {
          asked.dataset.turn = reply.dataset.turn = String(done.turn);
          refreshContext();
          setTimeout(refreshContext, SECOND_LOOK);
          return;
        }
        problem = "the reply was cut off before it finished";
      }
      showError(reply, `${problem} (tried ${TRIES} times)`);
    } finally {
      reply.classList.remove("streaming");
      busy = false;
      sendButton.disabled = sessionInput.disabled = false;
      input.focus();
    }
  }

  /** The message of an error response: its JSON {"error"}, else its status. */
  async function errorText(response) {
    let message = `${response.status} ${response.statusText}`;
    try {
      const body = await response.json();
      if (body && typeof body.error === "string") message = `${response.status}: ${body.error}`;
    } catch (err) { /* not JSON: the status says it */ }
    return `error ${message}`;
  }

  /** Read the event stream of `response` into `bubble` to its end; return the `done`
   * event's data ({turn, refused, guardrail, cited}), or null if none came. */
  async function readReply(response, bubble) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const feed = eventParser();
    const text = bubble.querySelector(".text");
    let finished = null;
    for (;;) {
      const {value, done} = await reader.read();
      const chunk = done ? decoder.decode() : decoder.decode(value, {stream: true});
      for (const {event, data} of feed(chunk)) {
        const body = JSON.parse(data);
        if (event === "reply") {
          settle(bubble, "assistant");
          text.append(body.text);            // a text node: never parsed as HTML
        } else if (event === "refusal") {
          settle(bubble, "refusal");
          text.textContent = body.text;
        } else if (event === "done") {
          settle(bubble, body.refused ? "refusal" : "assistant");
          bubble.querySelector(".meta").textContent = doneText(body);
          finished = body;
        }
        scrollDown();
      }
      if (done) return finished;
    }
  }

  /** The line under a reply: "turn 2 · cites refunds-05" or "turn 3 · refused: ...". */
  function doneText(done) {
    const why = done.refused ? `refused: ${done.guardrail}`
      : done.cited.length ? `cites ${done.cited.join(", ")}` : done.guardrail;
    return `turn ${done.turn} · ${why}`;
  }

  // ---- the context panel -----------------------------------------------------------

  /** Fetch the session's context and draw it (unless a newer look was asked since). */
  async function refreshContext() {
    const look = ++looks, asked = session;
    const status = $("context-status");
    try {
      const response = await fetch(`/sessions/${encodeURIComponent(asked)}/context`,
                                   {cache: "no-store"});
      const body = await response.json();
      if (look !== looks) return;
      if (!response.ok) {
        status.textContent = `error ${response.status}: ${body.error}`;
        return;
      }
      status.textContent = "";
      drawContext(body);
    } catch (err) {
      if (look === looks) status.textContent = `could not load: ${err.message}`;
    }
  }

  function drawContext(context) {
    const panel = $("context");
    panel.dataset.turns = String(context.turns);
    panel.dataset.size = String(context.size);
    panel.dataset.budget = context.budget === null ? "" : String(context.budget);
    drawBudget(context);
    $("size").textContent = context.budget === null ? `${context.size} ${context.unit}`
      : `${context.size} of ${context.budget} ${context.unit}`;
    $("turns").textContent = `${context.turns} (${context.recent.length} messages verbatim)`;
    const summary = $("summary");
    summary.textContent = context.summary || "nothing summarised yet";
    summary.classList.toggle("empty", !context.summary);
    drawRecent(context.recent);
    drawMoved(context.events);
  }

  /** The budget bar: its width is the budget (or the size, when over it, with a mark
   * where the budget ends), one segment per part, width tokens / budget; the legend
   * "summary 40 · recent 95 · free 15 / 150 tokens". Segments are kept by part name,
   * so their widths animate. */
  function drawBudget({parts, budget, size, unit}) {
    const bar = $("budget-bar"), mark = $("budget-mark");
    const scale = Math.max(budget || 0, size, 1);
    const old = new Map([...bar.children].map((node) => [node.dataset.part, node]));
    const segments = parts.map((part, i) => {
      const segment = old.get(part.name) || make("div", `segment p${i % PALETTE}`);
      segment.dataset.part = part.name;
      segment.dataset.tokens = String(part.tokens);
      segment.style.width = `${(100 * part.tokens) / scale}%`;
      segment.title = `${part.name}: ${part.tokens} ${unit}, ${part.items} items` +
        (part.cut ? `, ${part.cut} cut` : "");
      return segment;
    });
    bar.replaceChildren(...segments);
    const over = budget !== null && size > budget;
    bar.classList.toggle("over", over);
    mark.hidden = !over;                     // under the budget, the bar's end is it
    mark.style.left = `${(100 * (budget || 0)) / scale}%`;

    const legend = $("budget-legend");
    const items = parts.map((part, i) => legendItem(part.name, part.tokens, `p${i % PALETTE}`));
    if (budget !== null) {
      items.push(over ? legendItem("over", size - budget, "over")
                      : legendItem("free", budget - size, "free"));
    }
    legend.replaceChildren();
    items.forEach((item, i) => legend.append(...(i ? [" · ", item] : [item])));
    legend.append(budget === null ? ` (no budget) ${unit}` : ` / ${budget} ${unit}`);
  }

  function legendItem(name, tokens, colour) {
    const item = make("span", `item ${colour}`);
    item.dataset.part = name;
    item.dataset.tokens = String(tokens);
    item.append(make("span", "swatch"), `${name} ${tokens}`);
    return item;
  }

  /** The verbatim messages: number, role and first words. */
  function drawRecent(recent) {
    const list = $("recent");
    list.replaceChildren(...recent.map((message) => {
      const item = make("li", `message ${message.role}`);
      item.dataset.number = String(message.number);
      item.dataset.role = message.role;
      item.title = message.content;
      item.append(make("span", "number", `#${message.number}`), " ",
                  make("span", "role", message.role), " ",
                  make("span", "words", firstWords(message.content)));
      return item;
    }));
    if (!recent.length) list.append(make("li", "empty", "no messages yet"));
  }

  function firstWords(text) {
    const words = text.split(/\s+/).filter(Boolean);
    return words.slice(0, FIRST_WORDS).join(" ") + (words.length > FIRST_WORDS ? " …" : "");
  }

  /** What moved into the summary: the newest compaction events (action "compacted"),
   * which messages moved after which turn, and failed compactions. */
  function drawMoved(events) {
    const list = $("moved");
    const shown = events.filter((e) => e.action === "compacted"
                                      || (e.kind === "memory" && e.action === "failed"))
      .reverse().slice(0, MOVED_SHOWN);
    list.replaceChildren(...shown.map((event) => {
      const item = make("li", `moved-event ${event.action}`);
      item.dataset.action = event.action;
      item.dataset.turn = String(event.turn ?? "");
      item.dataset.moved = (event.moved || []).join(" ");
      if (event.action === "failed") {
        item.append(make("p", "head", `after turn ${event.turn}: the compaction failed`),
                    make("p", "note", event.note || ""));
        return item;
      }
      const numbers = (event.moved || []).join(", ");
      item.append(make("p", "head", `after turn ${event.turn}: messages ${numbers} moved ` +
                                    `(${event.size_before} → ${event.size_after} ${event.unit})`));
      const moved = make("ol", "moved-messages");
      for (const message of event.moved_text || []) {
        const line = make("li", `message ${message.role}`);
        line.dataset.number = String(message.number);
        line.append(make("span", "number", `#${message.number}`), " ",
                    make("span", "role", message.role), " ",
                    make("span", "content", message.content));
        moved.append(line);
      }
      item.append(moved);
      if (event.note) item.append(make("p", "note", event.note));
      return item;
    }));
    if (!shown.length) {
      list.append(make("li", "empty", "nothing yet: the oldest turns move here once the " +
                                      "memory is over its budget"));
    }
  }

  // ---- the session -----------------------------------------------------------------

  /** Switch to session `id` (checked): the URL's ?session= follows, the chat empties. */
  function useSession(id) {
    session = id;
    sessionInput.value = id;
    const url = new URL(location.href);
    url.searchParams.set("session", id);
    history.replaceState(null, "", url);
    messages.replaceChildren();
    note(`Session ${id}. Ask about refunds, delivery, payment or the warranty.`);
    refreshContext();
  }

  function start() {
    const asked = new URLSearchParams(location.search).get("session");
    const valid = asked !== null && SESSION_ID.test(asked);
    useSession(valid ? asked : randomSession());
    if (asked !== null && !valid) {
      note(`The session id in the URL is not valid (1-64 letters, digits, _ or -): ` +
           `using ${session} instead.`);
    }
    composer.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = input.value;
      if (busy || !text.trim()) return;
      input.value = "";
      send(text);
    });
    $("session-form").addEventListener("submit", (event) => {
      event.preventDefault();
      sessionInput.blur();
    });
    sessionInput.addEventListener("change", () => {
      const id = sessionInput.value.trim();
      if (id === session) return;
      if (!SESSION_ID.test(id)) {
        note(`Not a session id: ${id} (1-64 letters, digits, _ or -). Still in ${session}.`);
        sessionInput.value = session;
        return;
      }
      useSession(id);
    });
    input.focus();
  }

  start();
})();
