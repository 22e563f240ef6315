// The administrator's page: the workers' games in flight, the queue, pause / resume, the
// Ray cluster's nodes (when the arena plays on one), and invite codes; refreshed every second.
const $ = (id) => document.getElementById(id);
let paused = false;

function cell(value) {
  const td = document.createElement("td");
  td.textContent = value ?? "";
  return td;
}

async function refresh() {
  const reply = await fetch("/api/arena/admin");
  const body = await reply.json();
  if (!reply.ok) {
    $("refused").textContent = body.error;
    $("refused").classList.remove("hidden");
    return false;
  }
  $("panel").classList.remove("hidden");
  paused = Object.values(body.paused).some(Boolean);
  $("pause").textContent = paused ? "resume" : "pause";
  $("pause").setAttribute("aria-pressed", String(paused));
  $("summary").textContent = `${body.running.length} of ${body.workers} workers busy (${body.backend}, sandbox ${body.sandbox}); `
    + `queue ${body.queue}; ${body.games_per_second} games/s${paused ? "; paused" : ""}`;
  $("running").tBodies[0].replaceChildren(...body.running.map((r) => {
    const tr = document.createElement("tr");
    tr.append(cell(r.kind), cell(r.competition), cell(r.index), cell(r.bots.join(", ")), cell(r.seconds));
    return tr;
  }));
  $("cluster").classList.toggle("hidden", !body.nodes.length);
  $("nodes").tBodies[0].replaceChildren(...body.nodes.map((n) => {
    const tr = document.createElement("tr");
    tr.append(cell(n.id), cell(n.address), cell(n.state), cell(n.capacity), cell(n.in_flight), cell(n.games),
      cell(n.games_per_second), cell(n.note));
    return tr;
  }));
  if (!$("competition").options.length) {
    $("competition").replaceChildren(...Object.keys(body.paused).map((name) => {
      const option = document.createElement("option");
      option.value = option.textContent = name;
      return option;
    }));
  }
  return true;
}

$("pause").addEventListener("click", async () => {
  await fetch("/api/arena/admin/pause", { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ paused: !paused }) });
  refresh();
});

$("inviteform").addEventListener("submit", async (event) => {
  event.preventDefault();
  const reply = await fetch("/api/arena/admin/invites", { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ competition: $("competition").value, count: Number($("count").value) }) });
  const body = await reply.json();
  $("codes").textContent = reply.ok ? body.codes.join("\n") : body.error;
});

if (await refresh()) setInterval(refresh, 1000);
