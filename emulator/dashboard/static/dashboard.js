// The emulator's dashboard: plain JavaScript, no build step, nothing from the network.
// Every text from the world goes into the page as text (textContent), never as HTML.
"use strict";

const TOKEN_KEY = "turnkeyEmulatorControlToken";
const API = "/emulator/ui/api/";
const CONTROL = "/emulator/v1/";
const POLL_MS = 1000;
const PAGE = 50;
const AWAITING_VOTES = ["ACTIVITY_STATUS_CONSENSUS_NEEDED", "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"];

const state = {
  version: null,
  overview: null,
  view: "orgs",
  arg: null,
  offset: 0,
  statusFilter: "",
  voter: {},
  voteMessage: {},
  form: {},
  failures: 0,
};

// ----- the token: taken from ?token= once, then sent as a header ------------------------

(function takeToken() {
  const params = new URLSearchParams(location.search);
  if (params.has("token")) {
    sessionStorage.setItem(TOKEN_KEY, params.get("token"));
    params.delete("token");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
  }
})();

class HttpError extends Error {
  constructor(status, body) {
    super((body && body.message) || "HTTP " + status);
    this.status = status;
  }
}

async function post(url, params) {
  const headers = {"Content-Type": "application/json"};
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = "Bearer " + token;
  const answer = await fetch(url, {method: "POST", headers, body: JSON.stringify(params || {})});
  const body = await answer.json().catch(() => null);
  if (!answer.ok) throw new HttpError(answer.status, body);
  return body;
}

const api = (view, params) => post(API + view, params);

// ----- building the page -----------------------------------------------------------------

function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "className") node.className = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const time = (ms) => (ms ? new Date(ms).toISOString().replace("T", " ").slice(0, 19) : "");
const tsMs = (ts) => (ts ? Number(ts.seconds) * 1000 + Math.floor(Number(ts.nanos) / 1e6) : 0);
const short = (text, n = 12) => (text && text.length > n + 1 ? text.slice(0, n) + "…" : text || "");
const statusName = (s) => (s || "").replace("ACTIVITY_STATUS_", "");
const badge = (status) =>
  h("span", {className: "badge " + statusName(status).toLowerCase(), "data-testid": "status"},
    statusName(status));
const section = (title, ...body) => h("section", {}, h("h2", {}, title), ...body);
const empty = (text) => h("p", {className: "muted"}, text);
const json = (value) => h("pre", {className: "json"}, JSON.stringify(value, null, 2));

function table(headers, rows, testid) {
  return h("table", {},
    h("thead", {}, h("tr", {}, headers.map((name) => h("th", {}, name)))),
    h("tbody", {}, rows.map((cells) => h("tr", {"data-testid": testid}, cells.map((c) => h("td", {}, c))))));
}

function pager(page, onMove) {
  const from = page.total === 0 ? 0 : page.offset + 1;
  const to = page.offset + (page.activities || page.messages || page.calls || page.deliveries || page.apps || []).length;
  return h("div", {className: "pager"},
    h("button", {disabled: page.offset === 0, onclick: () => onMove(Math.max(0, page.offset - page.limit))}, "‹ newer"),
    h("span", {}, `${from}–${to}` + (page.total !== null && page.total !== undefined ? ` of ${page.total}` : "")),
    h("button", {disabled: !page.more, onclick: () => onMove(page.offset + page.limit)}, "older ›"));
}

// ----- views -----------------------------------------------------------------------------

function treeNode(node) {
  const selected = state.selectedOrg === node.organizationId;
  return h("li", {},
    h("a", {href: "#/orgs/" + node.organizationId, className: selected ? "selected" : "",
            "data-testid": "org-node", "data-org-id": node.organizationId},
      node.name),
    h("span", {className: "muted"},
      ` ${node.users} users · ${node.wallets} wallets · ${node.activities} activities`),
    node.children.length ? h("ul", {}, node.children.map(treeNode)) : null,
    node.moreChildren ? h("p", {className: "muted"}, `and ${node.moreChildren} more`) : null);
}

async function viewOrgs() {
  const overview = state.overview;
  const tree = h("nav", {className: "tree", "data-testid": "org-tree"},
    overview.organizations.length ? h("ul", {}, overview.organizations.map(treeNode))
      : empty("No organizations yet."));
  const orgId = state.arg || (overview.organizations[0] || {}).organizationId;
  if (!orgId) return [tree];
  state.selectedOrg = orgId;
  const org = await api("organization", {organizationId: orgId});
  const rebuilt = h("nav", {className: "tree", "data-testid": "org-tree"},
    h("ul", {}, overview.organizations.map(treeNode)));
  return [h("div", {className: "split"}, rebuilt, h("div", {className: "detail"}, orgDetail(org)))];
}

function credentials(user) {
  const items = [];
  for (const key of user.apiKeys) {
    items.push(h("li", {"data-testid": "api-key"}, "API key ", h("b", {}, key.apiKeyName), " ",
      key.credential.type.replace("CREDENTIAL_TYPE_", ""), " ", h("code", {}, key.credential.publicKey),
      key.expirationSeconds ? ` (expires after ${key.expirationSeconds} s)` : ""));
  }
  for (const auth of user.authenticators) {
    items.push(h("li", {"data-testid": "authenticator"}, "Passkey ", h("b", {}, auth.authenticatorName),
      " credential ", h("code", {}, short(auth.credentialId, 24)), " ", auth.model || ""));
  }
  for (const provider of user.oauthProviders) {
    items.push(h("li", {"data-testid": "oauth-provider"}, "OAuth ", h("b", {}, provider.providerName), " ",
      provider.issuer, " subject ", h("code", {}, provider.subject)));
  }
  return items.length ? h("ul", {className: "creds"}, items) : h("span", {className: "muted"}, "none");
}

function orgDetail(org) {
  const users = table(["User", "Contact", "Credentials", ""], org.users.map((user) => [
    h("span", {}, h("b", {}, user.userName), h("br"), h("code", {className: "muted"}, user.userId)),
    [user.userEmail || "", user.userPhoneNumber ? h("br") : null, user.userPhoneNumber || ""],
    credentials(user),
    user.keyHeld ? h("span", {className: "badge held", title: "the emulator holds an API key of this user"}, "key held") : "",
  ]), "user-row");
  const wallets = org.wallets.length ? org.wallets.map((wallet) =>
    h("div", {className: "card", "data-testid": "wallet"},
      h("h3", {}, wallet.walletName, " ", h("code", {className: "muted"}, wallet.walletId)),
      table(["Path", "Format", "Address"], wallet.accounts.map((a) =>
        [a.path, a.addressFormat.replace("ADDRESS_FORMAT_", ""), h("code", {}, a.address)]), "account"),
      wallet.accountCount > wallet.accounts.length
        ? empty(`and ${wallet.accountCount - wallet.accounts.length} more accounts`) : null)) : [empty("No wallets.")];
  const keys = org.privateKeys.length ? table(["Private key", "Curve", "Public key", "Addresses"],
    org.privateKeys.map((k) => [k.privateKeyName, k.curve.replace("CURVE_", ""), h("code", {}, short(k.publicKey, 20)),
      k.addresses.map((a) => h("div", {}, h("code", {}, a.address)))]), "private-key") : empty("No private keys.");
  const moreKeys = org.privateKeyCount > org.privateKeys.length
    ? empty(`and ${org.privateKeyCount - org.privateKeys.length} more private keys`) : null;
  const policies = org.policies.length ? table(["Policy", "Effect", "Condition", "Consensus"],
    org.policies.map((p) => [p.policyName, p.effect.replace("EFFECT_", ""), h("code", {}, p.condition),
      h("code", {}, p.consensus)]), "policy") : empty("No policies.");
  return [
    h("h2", {}, org.name, " ", h("code", {className: "muted"}, org.organizationId)),
    h("p", {}, `Root quorum: ${org.rootQuorum.threshold} of ${org.rootQuorum.userIds.length} · `,
      h("a", {href: "#/activities/" + org.organizationId}, `${org.activityCount} activities`),
      org.parentId ? [" · parent ", h("a", {href: "#/orgs/" + org.parentId}, short(org.parentId))] : ""),
    section("Users", users),
    section("Wallets", ...wallets),
    section("Private keys", keys, moreKeys),
    section("Policies", policies),
    org.invitations.length ? section("Invitations", table(["To", "Name", "Access"],
      org.invitations.map((i) => [i.receiverEmail, i.receiverUserName, i.accessType]), "invitation")) : null,
    org.onRampCredentials.length ? section("On-ramp credentials", table(["Provider", "Publishable key", "Mode"],
      org.onRampCredentials.map((c) => [c.onrampProvider.replace("FIAT_ON_RAMP_PROVIDER_", ""),
        h("code", {}, c.publishableApiKey), c.sandboxMode ? "sandbox" : "production"]), "onramp-credential")) : null,
    org.onRampTransactions.length ? section("On-ramp purchases", table(["Purchase", "Asset", "Wallet", "Provider", "Turnkey"],
      org.onRampTransactions.map((t) => [h("code", {}, short(t.transactionId)),
        [t.cryptoCurrencyCode.replace("FIAT_ON_RAMP_CRYPTO_CURRENCY_", ""), " on ", h("code", {}, t.caip2)],
        h("code", {}, short(t.walletAddress, 20)), t.providerStatus, t.status]), "onramp-purchase")) : null,
  ];
}

async function viewActivities() {
  const params = {offset: state.offset, limit: PAGE};
  if (state.arg) params.organizationId = state.arg;
  if (state.statusFilter) params.status = state.statusFilter;
  const page = await api("activities", params);
  const filter = h("select", {"data-testid": "status-filter", onchange: (event) => {
    state.statusFilter = event.target.value; state.offset = 0; render();
  }}, ["", ...AWAITING_VOTES, "ACTIVITY_STATUS_COMPLETED", "ACTIVITY_STATUS_FAILED",
       "ACTIVITY_STATUS_REJECTED", "ACTIVITY_STATUS_PENDING"].map((s) =>
    h("option", {value: s, selected: s === state.statusFilter}, s ? statusName(s) : "any status")));
  const rows = page.activities.map((a) => [
    h("a", {href: "#/activity/" + a.id, "data-testid": "activity-link"}, short(a.id, 18)),
    a.type.replace("ACTIVITY_TYPE_", ""), badge(a.status), a.organizationName || short(a.organizationId),
    a.proposer || "", `${a.approvals}✓ ${a.rejections}✗`, time(a.createdAtMs)]);
  return [
    h("div", {className: "toolbar"}, h("h2", {}, state.arg ? "Activities of " + short(state.arg) : "Activities"),
      filter, state.arg ? h("a", {href: "#/activities"}, "all organizations") : null),
    page.activities.length ? table(["Activity", "Type", "Status", "Organization", "Proposer", "Votes", "Created"],
      rows, "activity-row") : empty("No activities."),
    pager(page, (offset) => { state.offset = offset; render(); }),
  ];
}

async function viewActivity() {
  const detail = await api("activity", {activityId: state.arg});
  const a = detail.activity;
  const votes = table(["Voter", "Selection", "Scheme", "Policy outcomes", "When"], detail.votes.map((v) => [
    v.userName || v.userId, v.selection.replace("VOTE_SELECTION_", ""), v.scheme.replace("SIGNATURE_SCHEME_", ""),
    v.policyOutcomes.length ? h("ul", {}, v.policyOutcomes.map((o) =>
      h("li", {"data-testid": "policy-outcome"}, `${o.policyName || o.policyId}: ${o.outcome.replace("OUTCOME_", "")}`)))
      : h("span", {className: "muted"}, "none recorded"),
    time(v.createdAtMs)]), "vote-row");
  let voting = null;
  if (AWAITING_VOTES.includes(a.status)) {
    if (!detail.canVoteAs.length) {
      voting = empty("No user of this organization who has not voted has an API key the emulator holds " +
                     "(emu.backdoor.hold_key adds one).");
    } else {
      const chosen = state.voter[a.id] || detail.canVoteAs[0].userId;
      const select = h("select", {"data-testid": "vote-as", onchange: (e) => { state.voter[a.id] = e.target.value; }},
        detail.canVoteAs.map((u) => h("option", {value: u.userId, selected: u.userId === chosen}, u.userName)));
      const cast = (decision) => async () => {
        document.getElementById("vote-message").textContent = "…";
        try {
          const answer = await api("vote", {activityId: a.id, userId: select.value, decision});
          state.voteMessage[a.id] = answer.httpStatus === 200
            ? "Voted: " + statusName(answer.activity.status) : "Refused: " + answer.error.message;
        } catch (error) {
          state.voteMessage[a.id] = "Refused: " + error.message;
        }
        await refresh(true);
      };
      voting = h("div", {className: "card vote"}, "Vote as ", select, " ",
        h("button", {"data-testid": "approve", onclick: cast("approve")}, "Approve"), " ",
        h("button", {"data-testid": "reject", className: "danger", onclick: cast("reject")}, "Reject"));
    }
  }
  return [
    h("h2", {}, a.type.replace("ACTIVITY_TYPE_", ""), " ", badge(a.status)),
    h("p", {}, "Organization ", h("a", {href: "#/orgs/" + a.organizationId}, detail.organizationName),
      " · id ", h("code", {}, a.id), " · created ", time(tsMs(a.createdAt))),
    h("p", {}, "Fingerprint ", h("code", {}, a.fingerprint)),
    voting, h("p", {id: "vote-message", className: "muted", "data-testid": "vote-message"},
      state.voteMessage[a.id] || ""),
    section("Votes", votes),
    a.failure ? section("Failure", json(a.failure)) : null,
    section("Intent", json(a.intent)),
    Object.keys(a.result || {}).length ? section("Result", json(a.result)) : null,
  ];
}

async function viewOutbox() {
  const page = await api("outbox", {offset: state.offset, limit: PAGE});
  const cards = page.messages.map((m) => h("article", {className: "card mail", "data-testid": "message"},
    h("h3", {}, m.rendered.subject),
    h("p", {className: "muted"}, `${m.channel} to `, h("b", {}, m.to), ` · from ${m.senderName || "—"} <${m.senderAddress || "—"}>`,
      ` · ${m.template} · ${time(m.timeMs)} · ${m.id}`),
    m.rendered.lines.map((line) => h("p", {}, line)),
    m.rendered.code ? h("p", {className: "code", "data-testid": "otp-code"}, m.rendered.code) : null,
    m.rendered.link ? h("p", {}, h("a", {href: m.rendered.link, target: "_blank", rel: "noopener noreferrer",
      "data-testid": "magic-link"}, "Open the magic link"), " ", h("code", {className: "muted"}, short(m.rendered.link, 60))) : null,
    m.rendered.linkText && !m.rendered.link
      ? h("p", {}, "Link (not http or https, not clickable): ", h("code", {}, m.rendered.linkText)) : null,
    h("details", {}, h("summary", {}, "fields"), json(m.fields))));
  return [h("h2", {}, "Outbox"), cards.length ? cards : empty("Nothing sent yet."),
    pager(page, (offset) => { state.offset = offset; render(); })];
}

async function viewCalls() {
  const page = await api("calls", {offset: state.offset, limit: PAGE});
  const rows = page.calls.map((c) => [String(c.seq), time(c.timeMs), c.operation,
    h("span", {className: c.httpStatus === 200 ? "" : "bad"}, String(c.httpStatus)),
    c.activityStatus ? badge(c.activityStatus) : "",
    c.activityId ? h("a", {href: "#/activity/" + c.activityId}, short(c.activityId, 18)) : "",
    c.errorMessage || ""]);
  return [h("h2", {}, `Calls (${page.recorded} recorded)`),
    rows.length ? table(["#", "Time", "Operation", "HTTP", "Activity status", "Activity", "Error"], rows, "call-row")
      : empty("No calls yet."),
    pager(page, (offset) => { state.offset = offset; render(); })];
}

function field(name, attrs) {
  return h("input", {...attrs, name, value: state.form[name] ?? attrs.value ?? "",
    oninput: (e) => { state.form[name] = e.target.value; }});
}

async function viewControls() {
  const controls = await api("controls");
  const clockAction = (params) => async () => { await post(CONTROL + "clock", params); await refresh(true); };
  const advance = field("advanceSeconds", {type: "number", value: "3600", "data-testid": "advance-seconds"});
  const operation = field("faultOperation", {placeholder: "operation (any)", "data-testid": "fault-operation"});
  const count = field("faultCount", {type: "number", value: "1", min: "1"});
  const status = field("faultStatus", {type: "number", placeholder: "HTTP status (500)"});
  const message = field("faultMessage", {placeholder: "message"});
  const activityStatus = h("select", {onchange: (e) => { state.form.faultActivityStatus = e.target.value; }},
    ["", "ACTIVITY_STATUS_FAILED", "ACTIVITY_STATUS_CONSENSUS_NEEDED", "ACTIVITY_STATUS_PENDING"].map((s) =>
      h("option", {value: s, selected: s === (state.form.faultActivityStatus || "")}, s ? statusName(s) : "an HTTP error")));
  // The inputs keep their values in state.form (a live update may rebuild them at any time).
  const value = (name, fallback) => state.form[name] ?? fallback;
  const addFault = async () => {
    const params = {count: Number(value("faultCount", "1") || 1)};
    if (value("faultOperation")) params.operation = value("faultOperation");
    if (value("faultStatus")) params.status = Number(value("faultStatus"));
    if (value("faultMessage")) params.message = value("faultMessage");
    if (value("faultActivityStatus")) params.activityStatus = value("faultActivityStatus");
    const note = document.getElementById("fault-message");
    try { await post(CONTROL + "faults", params); note.textContent = "Added."; }
    catch (error) { note.textContent = "Refused: " + error.message; }
    await refresh(true);
  };
  return [
    section("Clock",
      h("p", {}, h("b", {"data-testid": "clock-value"}, time(controls.clock.nowMs)), controls.clock.frozen ? " (frozen)" : " (running)"),
      h("div", {className: "toolbar"},
        controls.clock.frozen ? h("button", {onclick: clockAction({unfreeze: true})}, "Unfreeze")
          : h("button", {onclick: clockAction({freeze: true}), "data-testid": "freeze"}, "Freeze"),
        advance, "seconds ",
        h("button", {"data-testid": "advance", onclick: () => clockAction({advanceSeconds: Number(value("advanceSeconds", "3600"))})()}, "Advance"))),
    section("Faults",
      controls.faults.length ? table(["Operation", "Remaining", "Answer"], controls.faults.map((f) =>
        [f.operation || "any", f.remaining === null ? `p=${f.probability}` : String(f.remaining),
         f.activity_status ? statusName(f.activity_status) : short(f.error, 60)]), "fault-row") : empty("No fault rules."),
      h("div", {className: "toolbar"}, operation, count, status, message, activityStatus,
        h("button", {onclick: addFault, "data-testid": "add-fault"}, "Add rule"),
        h("button", {className: "danger", onclick: async () => { await post(CONTROL + "faults/clear"); await refresh(true); }}, "Clear all")),
      h("p", {id: "fault-message", className: "muted"})),
  ];
}

async function viewWebhooks() {
  const page = await api("webhooks", {offset: state.offset, limit: PAGE});
  const card = (d) => h("div", {className: "card", "data-testid": "delivery"},
    d.eventType ? h("h3", {}, d.eventType, " → ", h("code", {}, d.url || ""), " ",
      h("span", {className: "badge " + String(d.state || "").toLowerCase()}, d.state || ""),
      d.attempts ? h("span", {className: "muted"}, ` ${d.attempts.length} attempt(s)`) : null) : null,
    h("details", {}, h("summary", {}, "delivery"), json(d)));
  return [h("h2", {}, "Webhook deliveries"),
    page.deliveries.length ? page.deliveries.map(card) : empty("No deliveries yet."),
    pager(page, (offset) => { state.offset = offset; render(); })];
}

async function viewTvc() {
  const page = await api("tvc", {offset: state.offset, limit: PAGE});
  const row = (d) => [d.live ? "live" : "", short(d.deploymentId), d.provisioningState.replace("PROVISIONING_STATE_", ""),
    `${d.readyReplicas}/${d.desiredReplicas}`, `${d.approvals}/${d.approvalThreshold}`, `${d.shares}/${d.shareThreshold}`,
    d.qosVersion, short(d.containerUrl, 48), (d.debugMode ? "debug " : "") + (d.delete ? "marked for deletion" : "")];
  const card = (app) => h("div", {className: "card", "data-testid": "tvc-app"},
    h("h3", {}, app.name, " ", h("code", {}, app.publicDomain), app.deleted ? h("span", {className: "muted"}, " (deleted)") : null),
    h("p", {className: "muted"}, `manifest set ${app.manifestSet.name} (${app.manifestSet.threshold} of ${app.manifestSet.operators.length}) · `,
      `share set ${app.shareSet.name} (${app.shareSet.threshold} of ${app.shareSet.operators.length})`,
      app.enableDebugModeDeployments ? " · debug deployments allowed" : ""),
    app.deployments.length ? table(["", "Deployment", "Provisioning", "Ready", "Approvals", "Shares", "QOS", "Image", ""],
      app.deployments.map(row), "tvc-deployment") : empty("No deployments."));
  return [h("h2", {}, "Verifiable Cloud"),
    page.apps.length ? page.apps.map(card) : empty("No TVC apps."),
    pager(page, (offset) => { state.offset = offset; render(); })];
}

const VIEWS = {orgs: viewOrgs, activities: viewActivities, activity: viewActivity, outbox: viewOutbox,
               calls: viewCalls, controls: viewControls, webhooks: viewWebhooks, tvc: viewTvc};

// ----- routing, rendering and live updates -----------------------------------------------

function route() {
  const [view, arg] = location.hash.replace(/^#\/?/, "").split("/");
  const next = VIEWS[view] ? view : "orgs";
  if (next !== state.view || (arg || null) !== state.arg) state.offset = 0;
  state.view = next;
  state.arg = arg ? decodeURIComponent(arg) : null;
}

function header() {
  const o = state.overview;
  state.clock = {...o.clock, seenAt: Date.now()};
  tick();
  document.getElementById("counts").textContent =
    `${o.organizationCount} organizations · ${o.activityCount} activities · ${o.messageCount} messages · ${o.callCount} calls`;
  document.getElementById("nav-webhooks").hidden = !o.webhooks;
  for (const link of document.querySelectorAll("#nav a")) {
    const active = link.dataset.view === state.view || (state.view === "activity" && link.dataset.view === "activities");
    link.classList.toggle("active", active);
  }
}

let rendering = Promise.resolve();

function render() {
  rendering = rendering.then(renderNow, renderNow);
  return rendering;
}

async function renderNow() {
  const main = document.getElementById("main");
  try {
    state.overview = await api("overview");
    header();
    const nodes = await VIEWS[state.view]();
    main.replaceChildren(...nodes.flat().filter(Boolean));
    document.body.dataset.rendered = state.view;
    if (!performance.getEntriesByName("dashboard-rendered").length) performance.mark("dashboard-rendered");
  } catch (error) {
    if (error.status === 401) main.replaceChildren(tokenForm());
    else main.replaceChildren(h("p", {className: "bad", "data-testid": "error"}, "Error: " + error.message));
    document.body.dataset.rendered = "error";
  }
}

function tokenForm() {
  const input = h("input", {type: "password", placeholder: "control token", "data-testid": "token"});
  return h("form", {className: "card", onsubmit: (e) => {
    e.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, input.value);
    render();
  }}, h("p", {}, "This emulator was started with --control-token: give it (or open the address serve printed)."),
  input, h("button", {type: "submit"}, "Use it"));
}

async function refresh(force) {
  const live = document.getElementById("live");
  try {
    const {version} = await api("version");
    state.failures = 0;
    live.textContent = "● live";
    live.className = "live on";
    if (force || version !== state.version) {
      state.version = version;
      await render();
    }
  } catch (error) {
    state.failures += 1;
    live.textContent = error.status === 401 ? "token needed" : "○ disconnected";
    live.className = "live off";
    if (error.status === 401 && document.body.dataset.rendered !== "error") await render();
  }
}

function tick() {  // the emulator's clock, moving with the page's between updates
  const c = state.clock;
  if (!c) return;
  const now = c.frozen ? c.nowMs : c.nowMs + (Date.now() - c.seenAt);
  document.getElementById("clock").textContent = "clock " + time(now) + (c.frozen ? " (frozen)" : "");
}

async function poll() {
  if (!document.hidden) await refresh(false);
  tick();
  setTimeout(poll, state.failures ? Math.min(POLL_MS * 2 ** state.failures, 10000) : POLL_MS);
}

window.addEventListener("hashchange", () => { route(); render(); });
document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(false); });
route();
poll();
