// Who is logged in, shown in the header of every page (#account): the name and a log-out
// button, or links to log in and sign up that come back to this page.
function link(text, href) {
  const a = document.createElement("a");
  a.textContent = text;
  a.href = href;
  return a;
}

export async function showAccount() {
  const where = document.getElementById("account");
  const me = await (await fetch("/api/me")).json();
  if (!where) return me.username;
  const here = encodeURIComponent(location.pathname + location.search);
  if (me.username) {
    const out = document.createElement("button");
    out.type = "button";
    out.id = "logout";
    out.textContent = "log out";
    out.addEventListener("click", async () => {
      await fetch("/api/logout", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      location.reload();
    });
    const name = document.createElement("span");
    name.id = "username-shown";
    name.textContent = me.username;
    where.replaceChildren("logged in as ", name, " ", out);
  } else {
    where.replaceChildren(link("log in", `/login?next=${here}`), " · ", link("sign up", `/signup?next=${here}`));
  }
  return me.username;
}
