"""People's accounts on a real ``gameroom web``: sign-up, log-in and log-out over the API
and on the pages (Chromium); passwords kept as argon2id hashes (in the results database
with ``--db``, where they outlive the room, else in memory, said on start); sessions in
signed HttpOnly, SameSite=Lax cookies (the secret from GAMEROOM_WEB_SECRET survives a
restart); names unique case-insensitively after NFKC; failed log-ins and sign-ups
throttled per address and per account; a person's seat needs a log-in, and the page
leads there and back."""

from __future__ import annotations

import re
import sqlite3
import zlib
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.web.conftest import PASSWORD, SESSION_COOKIE, WebServer, client_from, running_web, signed_up


def test_a_sign_up_logs_in_with_a_signed_httponly_lax_cookie(web_server: WebServer) -> None:
    person = httpx.Client(base_url=web_server.url)
    reply = person.post("/api/signup", json={"username": "Zoë", "password": PASSWORD})
    assert reply.status_code == 201 and reply.json() == {"username": "Zoë"}
    cookie = reply.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=") and "httponly" in cookie.lower() and "samesite=lax" in cookie.lower()
    assert person.get("/api/me").json() == {"username": "Zoë"}
    # a forged or altered cookie is no session
    forged = httpx.Client(base_url=web_server.url, cookies={SESSION_COOKIE: person.cookies[SESSION_COOKIE][:-2] + "xx"})
    assert forged.get("/api/me").json() == {"username": None}
    assert person.post("/api/logout").json() == {"username": None, "ended": 1}
    assert person.get("/api/me").json() == {"username": None}
    reply = person.post("/api/login", json={"username": "ZOË", "password": PASSWORD})
    assert reply.status_code == 200 and reply.json() == {"username": "Zoë"}   # the name as written at sign-up


@pytest.mark.parametrize("taken", ["alice", "ALICE", "Ａｌｉｃｅ", "ᴬlice"])
def test_names_are_unique_case_insensitively_after_nfkc(web_server: WebServer, taken: str) -> None:
    signed = httpx.post(web_server.url + "/api/signup", json={"username": "Alice", "password": PASSWORD})
    assert signed.status_code in (201, 409)
    reply = httpx.post(web_server.url + "/api/signup", json={"username": taken, "password": PASSWORD})
    assert reply.status_code == 409 and "is taken" in reply.json()["error"]
    assert httpx.post(web_server.url + "/api/login", json={"username": taken, "password": PASSWORD}).status_code == 200


@pytest.mark.parametrize("body, message", [
    ({"username": "", "password": PASSWORD}, "username: 1 to 32 characters"),
    ({"username": "x" * 33, "password": PASSWORD}, "username: 1 to 32 characters"),
    ({"username": "a b", "password": PASSWORD}, "not ' '"),
    ({"username": "a\u202eb", "password": PASSWORD}, "letters, digits"),
    ({"username": "-dash", "password": PASSWORD}, "must start with a letter or a digit"),
    ({"username": 7, "password": PASSWORD}, "username: expected `str`, got `int`"),
    ({"username": "shorty"}, "the body: object missing required field `password`"),
    ({"username": "shorty", "password": "1234567"}, "password: 8 to 256 characters"),
    ({"username": "shorty", "password": PASSWORD, "admin": True}, "unknown field `admin`; the body must be {"),
    ([1], "the body: expected `object`, got `array`; the body must be {\"username\""),
])
def test_a_bad_sign_up_says_what_is_wrong(web_server: WebServer, body: Any, message: str) -> None:
    reply = httpx.post(web_server.url + "/api/signup", json=body)
    assert reply.status_code == 400 and message in reply.json()["error"], reply.json()


@pytest.mark.parametrize("path, body, message", [
    ("/api/login", {"username": "shorty", "password": 12345678}, "password: expected `str`, got `int`"),
    ("/api/login", {"username": "shorty", "password": PASSWORD, "remember": True}, "unknown field `remember`"),
    ("/api/logout", {"everywhere": "yes"}, "everywhere: expected `bool`, got `str`"),
    ("/api/password", {"password": PASSWORD}, "object missing required field `new_password`"),
    ("/api/password", {"password": PASSWORD, "new_password": None}, "new_password: expected `str`, got `null`"),
])
def test_a_bad_account_body_names_its_field_and_the_right_shape(web_server: WebServer, path: str, body: Any,
                                                                message: str) -> None:
    person = signed_up(web_server.url, f"shape{zlib.crc32((path + repr(body)).encode())}")
    reply = person.post(path, json=body)
    error = reply.json()["error"]
    assert reply.status_code == 400 and message in error and "; the body must be {" in error, error
    assert person.get("/api/me").json()["username"] is not None   # a refused log-out ends nothing


def test_failed_log_ins_lock_out_the_account_from_that_address_only() -> None:
    """14 wrong passwords for an account from another address (issue 27, finding 6): that
    address waits, doubling (429, Retry-After, naming the key); the owner's right password
    from their own address still opens the account."""
    with running_web("--login-failures", "3") as server:
        signed_up(server.url, "target")
        attacker = client_from(server.url, "127.0.0.2")
        replies = [attacker.post("/api/login", json={"username": "target", "password": "wrong-guess"})
                   for _ in range(3)]
        assert [r.status_code for r in replies] == [401] * 3
        assert all(r.json()["error"] == "wrong username or password" for r in replies)
        reply = attacker.post("/api/login", json={"username": "target", "password": PASSWORD})   # within 4 s
        assert reply.status_code == 429 and "too many failed log-ins" in reply.json()["error"]
        assert "--login-failures" in reply.json()["error"] and int(reply.headers["retry-after"]) > 0
        replies = [attacker.post("/api/login", json={"username": "target", "password": "wrong-guess"})
                   for _ in range(11)]
        assert {r.status_code for r in replies} <= {401, 429}
        owner = client_from(server.url, "127.0.0.1")
        assert owner.post("/api/login", json={"username": "target", "password": PASSWORD}).status_code == 200
        # an unknown name is a failure like any other (and says nothing more)
        other = client_from(server.url, "127.0.0.3")
        assert other.post("/api/login", json={"username": "nobody", "password": PASSWORD}).status_code == 401


def test_a_copied_cookie_opens_nothing_after_log_out_a_new_password_or_sign_out_everywhere() -> None:
    """Sessions end on the server (issue 27, finding 6): a cookie copied before ``POST
    /api/logout`` no longer opens the account (it used to, for 14 days)."""
    with running_web() as server:
        person = signed_up(server.url, "copied")
        copy = httpx.Client(base_url=server.url, cookies={SESSION_COOKIE: person.cookies[SESSION_COOKIE]},
                            headers={"origin": server.url})
        assert copy.get("/api/me").json() == {"username": "copied"}
        assert person.post("/api/logout").json()["ended"] == 1
        assert copy.get("/api/me").json() == {"username": None}
        started = copy.post("/api/matches", json={"game": "q", "seats": ["human", "dag"]})
        assert started.status_code == 401   # a person's seat needs a log-in: the copy has none
        # a new password ends every other session, the one that changed it goes on
        laptop, phone = (client_from(server.url) for _ in range(2))
        for device in (laptop, phone):
            assert device.post("/api/login", json={"username": "copied", "password": PASSWORD}).status_code == 200
        new = "a new password, long enough"
        assert laptop.post("/api/password", json={"password": "wrong one!", "new_password": new}).status_code == 403
        changed = laptop.post("/api/password", json={"password": PASSWORD, "new_password": new})
        assert changed.status_code == 200 and changed.json()["ended"] >= 1, changed.text
        assert laptop.get("/api/me").json() == {"username": "copied"}
        assert phone.get("/api/me").json() == {"username": None}
        assert phone.post("/api/login", json={"username": "copied", "password": PASSWORD}).status_code == 401
        assert phone.post("/api/login", json={"username": "copied", "password": new}).status_code == 200
        # sign out everywhere: every session of the account ends
        assert laptop.post("/api/logout", json={"everywhere": True}).json()["ended"] == 2
        assert phone.get("/api/me").json() == {"username": None}
        # without staff, nobody may sign another account out
        other = signed_up(server.url, "nosy")
        refused = other.post("/api/accounts/signout", json={"username": "copied"})
        assert refused.status_code == 403


@pytest.mark.parametrize("look_alike", ["w\u0430lice", "WALICE", "wa\u217cice", "wal\u0131ce"])
def test_a_name_that_looks_like_an_existing_one_is_refused(web_server: WebServer, look_alike: str) -> None:
    """``wаlice`` (Cyrillic а) was a second account displayed exactly like ``walice``: the
    UTS #39 skeletons of the two names are one, so the second is refused (409)."""
    signed = httpx.post(web_server.url + "/api/signup", json={"username": "walice", "password": PASSWORD})
    assert signed.status_code in (201, 409)
    reply = httpx.post(web_server.url + "/api/signup", json={"username": look_alike, "password": PASSWORD})
    assert reply.status_code == 409, reply.text
    assert "looks the same" in reply.json()["error"] or "is taken" in reply.json()["error"]


def test_sign_ups_are_throttled_per_address() -> None:
    with running_web("--signups-per-address", "2") as server:
        for name in ("one", "two"):
            signed_up(server.url, name)
        reply = httpx.post(server.url + "/api/signup", json={"username": "three", "password": PASSWORD})
        assert reply.status_code == 429 and "--signups-per-address" in reply.json()["error"]


def test_without_a_database_accounts_live_in_memory_and_the_start_says_so() -> None:
    with running_web() as server:
        signed_up(server.url, "ephemeral")
        err = server.stop()
    assert "accounts are kept in memory" in err and "secret made for this run" in err


def test_with_a_database_accounts_are_argon2_hashes_that_outlive_the_room(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'room.db'}"
    secret = {"GAMEROOM_WEB_SECRET": "a secret of the room, long enough"}
    with running_web("--db", url, env=secret) as server:
        person = signed_up(server.url, "Keeper")
        cookie = person.cookies[SESSION_COOKIE]
    with sqlite3.connect(tmp_path / "room.db") as db:
        [(name, key, password_hash)] = db.execute("select name, key, password_hash from accounts").fetchall()
    assert (name, key) == ("Keeper", "keeper") and PASSWORD not in password_hash
    assert password_hash.startswith("$argon2id$") and "m=19456,t=2,p=1" in password_hash
    with running_web("--db", url, env=secret) as server:   # the same secret: the session still holds
        again = httpx.Client(base_url=server.url, cookies={SESSION_COOKIE: cookie})
        assert again.get("/api/me").json() == {"username": "Keeper"}
        assert httpx.post(server.url + "/api/login",
                          json={"username": "keeper", "password": PASSWORD}).status_code == 200
    with running_web("--db", url) as server:   # another secret: the old cookie proves nothing
        again = httpx.Client(base_url=server.url, cookies={SESSION_COOKIE: cookie})
        assert again.get("/api/me").json() == {"username": None}


def test_a_session_of_an_account_that_is_gone_opens_nothing() -> None:
    secret = {"GAMEROOM_WEB_SECRET": "the same secret across two runs"}
    with running_web(env=secret) as server:
        cookie = signed_up(server.url, "Ghost").cookies[SESSION_COOKIE]
    with running_web(env=secret) as server:   # in memory: the account went with the first run
        signed_up(server.url, "ghost")   # someone else takes the name
        old = httpx.Client(base_url=server.url, cookies={SESSION_COOKIE: cookie})
        assert old.get("/api/me").json() == {"username": None}


def test_a_short_or_missing_secret_is_one_error_line(tmp_path: Path) -> None:
    import subprocess

    from driver import GAMEROOM, free_port

    (tmp_path / "short").write_text("tiny")
    for option, message in ((["--secret-file", str(tmp_path / "short")], "needs at least 16"),
                            (["--secret-file", str(tmp_path / "none")], "cannot read --secret-file"),
                            (["--secret", "tiny"], "the session secret of --secret is 4 characters"),
                            (["--lobby", "127.0.0.1:9", "--lobby-secret-file", str(tmp_path / "short")],
                             "the lobby secret is 4 characters; it needs at least 16 (the lobby's relaySecret)"),
                            (["--lobby", "127.0.0.1:9", "--lobby-secret-file", str(tmp_path / "none")],
                             "cannot read --lobby-secret-file")):
        run = subprocess.run([*GAMEROOM, "web", "--port", str(free_port()), *option], capture_output=True, timeout=120)
        err = run.stderr.decode()
        assert run.returncode == 2 and message in err and err.count("\n") == 1, err


def test_a_secret_on_the_command_line_works_and_the_start_says_it_shows() -> None:
    with running_web("--secret", "a secret given on the command line") as server:
        cookie = signed_up(server.url, "Visible").cookies[SESSION_COOKIE]
        assert httpx.Client(base_url=server.url, cookies={SESSION_COOKIE: cookie}).get("/api/me").json() == \
            {"username": "Visible"}
        err = server.stop()
    assert "--secret shows in every process listing" in err


def test_a_person_is_sent_to_log_in_and_back_to_the_seat_in_chromium(web_server: WebServer, page: Any) -> None:
    creator = signed_up(web_server.url, "host-of-two")
    reply = creator.post("/api/matches", json={"game": "q", "seats": ["human", "human"], "person_limit": 300})
    match_id, token = reply.json()["id"], reply.json()["tokens"]["P2"]
    seat_url = f"{web_server.url}/matches/{match_id}?seat=P2&token={token}"
    page.goto(seat_url)
    page.wait_for_selector("#login:not(.hidden)")
    assert "log in to take a person's seat" in page.inner_text("#turn")
    page.click("#loginlink")
    page.wait_for_url(re.compile(r"/login\?next="))
    page.click("#other")   # no account yet: to the sign-up page, keeping the way back
    page.wait_for_url(re.compile(r"/signup\?next="))
    page.fill("#username", "guest two")
    page.fill("#password", PASSWORD)
    page.click("#submit")
    page.wait_for_selector("#error:has-text('letters, digits')")   # the room's reason, on the page
    page.fill("#username", "guest-two")
    page.click("#submit")
    page.wait_for_url(seat_url)
    page.wait_for_selector("#you:has-text('you are P2')")
    assert page.inner_text("#username-shown") == "guest-two"
    # the seat is guest-two's now: the creator, holding the same link, is refused
    page.click("#logout")
    page.wait_for_selector("#account a:has-text('log in')")
    page.click("#account a:has-text('log in')")
    page.fill("#username", "host-of-two")
    page.fill("#password", "not the password")
    page.click("#submit")
    page.wait_for_selector("#error:has-text('wrong username or password')")
    page.fill("#password", PASSWORD)
    page.click("#submit")
    page.wait_for_url(seat_url)
    page.wait_for_selector("#turn:has-text('belongs to another account')")


def test_the_lockout_counts_each_account_and_address_pair_and_doubles_its_wait() -> None:
    from gameroom.web.accounts import Lockout

    now = [1000.0]
    lockout = Lockout(free=3, window=300, clock=lambda: now[0])
    for _ in range(3):
        assert lockout.wait("bob from 127.0.0.2") == 0
        lockout.failed("bob from 127.0.0.2")
    assert lockout.wait("bob from 127.0.0.2") == 4 and lockout.wait("bob from 127.0.0.1") == 0
    now[0] += 4
    lockout.failed("bob from 127.0.0.2")
    assert lockout.wait("bob from 127.0.0.2") == 8
    for _ in range(20):
        lockout.failed("bob from 127.0.0.2")
    assert lockout.wait("bob from 127.0.0.2") == 300   # at most the window
    now[0] += 301   # a window without failures: forgotten
    assert lockout.wait("bob from 127.0.0.2") == 0
    lockout.failed("ann from 127.0.0.2")
    lockout.succeeded("ann from 127.0.0.2")
    assert lockout.wait("ann from 127.0.0.2") == 0
