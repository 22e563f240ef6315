// The sign-up and log-in pages: one form each, posted as JSON; back to ?next= (a path of
// this room only) or the lobby once logged in.
import { showAccount } from "/static/session.js";

const $ = (id) => document.getElementById(id);
const mode = document.body.dataset.mode;
const params = new URLSearchParams(location.search);
const next = params.get("next");
// only a path of this room: never another site ("//host" or "https://...")
const back = next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
if (next) $("other").href = `${$("other").getAttribute("href")}?next=${encodeURIComponent(back)}`;

$("form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("error").textContent = "";
  const reply = await fetch(`/api/${mode}`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: $("username").value, password: $("password").value }),
  });
  const answer = await reply.json();
  if (!reply.ok) { $("error").textContent = answer.error; return; }
  window.location = back;
});

await showAccount();
