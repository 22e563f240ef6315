// The sign-up page (/signup) and the log-in page (/login), one form posted as JSON; back to
// ?next= (a path of this room only) or the lobby once logged in.
import { showAccount } from "/static/session.js";

const $ = (id) => document.getElementById(id);
const mode = location.pathname === "/signup" ? "signup" : "login";
const words = {
  signup: { title: "Sign up", other: "have an account?", link: "log in", to: "/login", password: "new-password" },
  login: { title: "Log in", other: "no account yet?", link: "sign up", to: "/signup", password: "current-password" },
}[mode];
const params = new URLSearchParams(location.search);
const next = params.get("next");
// only a path of this room: never another site ("//host" or "https://...")
const back = next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";

document.title = `gameroom — ${words.title.toLowerCase()}`;
$("what").textContent = words.title.toLowerCase();
$("heading").textContent = words.title;
$("submit").textContent = words.title.toLowerCase();
$("password").autocomplete = words.password;
$("otherText").textContent = words.other;
$("other").textContent = words.link;
$("other").href = next ? `${words.to}?next=${encodeURIComponent(back)}` : words.to;

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
