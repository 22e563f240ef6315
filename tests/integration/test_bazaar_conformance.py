"""Every Bazaar fixture through the real command line (spec §10, fixture README).

* The milestone harnesses (xeq, xturn, xstrategy, xrules, xgames, xgames-blogic,
  xgames-resources) run as ``gameroom harness bazaar NAME`` subprocesses, compared by the
  README's rules (several by multiset).
* The integration tests (``Integration/Tests``, ``Tests/ServerBonus`` with the bonus
  clients, ``1Tests``) start a real ``gameroom serve bazaar`` and a real ``gameroom clients
  bazaar`` on a free port of 127.0.0.1; the server's output must equal ``Server/N-out.json``.
  Server tests without a client file (43, 49) use ``Clients/17-in.json``, as the README
  says; a pre-concatenated ``Tests/N-in.json`` (client values, then server values) runs with
  the bonus clients.

All cases of a run are submitted at once, the server cases to the pool for cases that
mostly wait, so the 20 s sign-up windows overlap each other and the harness runs; each
test waits for its own case.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest

from conftest import fixture_cases, fixtures_root, game_fixtures, read_json_values
from driver import Run, run_gameroom, run_server_and_clients, selected_params, submit, submit_all
from tests.games.bazaar.compare import COMPARE

HARNESSES = ["xeq", "xturn", "xstrategy", "xrules", "xgames", "xgames-blogic", "xgames-resources"]
HARNESS_CASES = [pytest.param(h, *case.values, id=f"{h}/{case.id}", marks=case.marks)
                 for h in HARNESSES for case in fixture_cases("bazaar", h)]


def _harness_job(harness: str, path: Path) -> tuple:
    return (run_gameroom, ["harness", "bazaar", harness], path.read_bytes())


# -- server + clients over TCP ----------------------------------------------------------------

def _integration_cases() -> list:
    base = fixtures_root() / "bazaar" / "Integration"
    if not base.is_dir():
        return [pytest.param(None, None, None, None, id="Integration-absent",
                             marks=pytest.mark.skip(reason=f"reference fixtures not found at {base}"))]
    cases = []
    for tests, server_dir, clients_dir, bonus in (("Tests", "Server", "Clients", False),
                                                  ("Tests", "ServerBonus", "ClientsBonus", True),
                                                  ("1Tests", "Server", "Clients", False)):
        for server in sorted((base / tests / server_dir).glob("*-in.json"), key=lambda p: int(p.name.split("-")[0])):
            n = server.name.split("-")[0]
            clients = base / tests / clients_dir / f"{n}-in.json"
            if not clients.exists() and tests == "Tests" and not bonus:
                clients = base / tests / clients_dir / "17-in.json"   # 43 and 49 (README)
            cases.append(pytest.param(str(server), str(clients), str(server.with_name(f"{n}-out.json")), bonus,
                                      id=f"{tests}/{server_dir}/{n}"))
    for joined in sorted((base / "Tests").glob("*-in.json")):   # client values, then server values
        cases.append(pytest.param(str(joined), None, str(joined.with_name(joined.name.replace("-in", "-out"))), True,
                                  id=f"Tests/{joined.name}"))
    return cases


def _values_bytes(values: list) -> bytes:
    return "\n".join(json.dumps(v) for v in values).encode()


def _expected(path: str) -> Callable[[Run], bool]:
    """Whether a run printed the fixture's output (a run the machine disturbed otherwise is
    run again: the 4 s per call and the 20 s windows are the spec's, driver.until_undisturbed)."""
    return lambda run: read_json_values(run.stdout) == read_json_values(Path(path).read_text())


def _integration_job(server: str, clients: str | None, expected: str, bonus: bool) -> tuple:
    if clients is None:
        values = read_json_values(Path(server).read_text())
        server_input, client_input = _values_bytes(values[2:]), _values_bytes(values[:2])
    else:
        server_input, client_input = Path(server).read_bytes(), Path(clients).read_bytes()
    return (run_server_and_clients, "bazaar", server_input, client_input, ["--bonus"] if bonus else [], 200,
            _expected(expected))


def _submit_everything(request: pytest.FixtureRequest) -> None:
    """Start every selected case of this module: the sign-up-bound server cases first
    (they mostly wait), then the CPU-bound harness runs."""
    submit_all({("bazaar-int", s): _integration_job(s, c, e, b)
                for s, c, e, b in selected_params(request, "test_server_and_clients",
                                                   "server", "clients", "expected", "bonus") if s is not None},
               waits=True)
    submit_all({("bazaar-harness", str(p)): _harness_job(h, p)
                for h, p in selected_params(request, "test_harness_fixture", "harness", "path") if p is not None})


@pytest.mark.parametrize("server, clients, expected, bonus", _integration_cases())
def test_server_and_clients(server: str, clients: str | None, expected: str, bonus: bool,
                            request: pytest.FixtureRequest) -> None:
    game_fixtures("bazaar")
    _submit_everything(request)
    run = submit(("bazaar-int", server), *_integration_job(server, clients, expected, bonus), waits=True).result()
    assert read_json_values(run.stdout) == read_json_values(Path(expected).read_text()), run.stderr[-3000:]


@pytest.mark.parametrize("harness, path", HARNESS_CASES)
def test_harness_fixture(harness: str, path: Path, request: pytest.FixtureRequest) -> None:
    game_fixtures("bazaar")
    _submit_everything(request)
    run = submit(("bazaar-harness", str(path)), *_harness_job(harness, path)).result()
    assert run.returncode == 0, run.stderr
    expected = read_json_values(path.with_name(path.name.replace("-in.json", "-out.json")).read_text())
    COMPARE[harness](read_json_values(run.stdout), expected)


