"""Logging in to the lobby (:class:`Login`; eriantys.md 7.2, docs/lobby.md "Logging in"):
a name that is valid (:func:`valid_username`) and free, a spectator's log-in, a web room
account's credential (whose name a namesake without it loses), a reconnect secret, and a
held seat taken back, or the end of its game collected, by a log-in that proves it is the
connection that left (``server.lobby_identity``); logging out.

A layer of the one ``server.lobby.Lobby`` over ``server.lobby_departures`` (a mixin
chain: a log-in takes names and held seats that departures release and hold).
"""

from __future__ import annotations

import logging
from typing import Any

from gameroom.server.lobby_identity import MAX_SECRET, new_secret, valid_credential
from gameroom.server.lobby_members import ACK, CONNECTED, LOBBY, Client, nack
from gameroom.server.lobby_departures import Returns

__all__ = ["Login", "valid_username"]

logger = logging.getLogger(__name__)


def valid_username(name: Any) -> bool:
    """4.5 and 11 #42: a string of 1 to 32 characters without control characters."""
    # Lone surrogates (JSON "\ud800") are not characters: such a name could not even be
    # written back to the clients in UTF-8.
    return (isinstance(name, str) and 1 <= len(name) <= 32
            and not any(ord(ch) < 32 or 127 <= ord(ch) < 160 or 0xD800 <= ord(ch) < 0xE000 for ch in name))


class Login(Returns):
    """``LOGIN``, ``LOGOUT`` and ``PONG``: who a connection is."""

    def _login(self, client: Client, m: dict[str, Any]) -> None:
        """LOGIN (eriantys.md 7.2), and ours: ``spectator``; ``secret`` (true: hand out a
        reconnect secret in the ACK; a string: the one handed out, to take back a held
        seat from anywhere); ``account`` (a web room account's credential). A held seat
        goes back only to a log-in that proves it is the connection that left
        (``server.lobby_identity``); a name alone is taken."""
        if client.state != CONNECTED:
            client.send(nack("Already logged in!"))
            return
        name = m.get("username")
        if not isinstance(name, str) or not valid_username(name):
            client.send(nack("Invalid username"))
            return
        spectator = m.get("spectator", False)
        if not isinstance(spectator, bool):
            client.send(nack("Invalid spectator: true or false"))
            return
        secret = m.get("secret")
        if secret is not None and secret is not True and not (isinstance(secret, str) and 0 < len(secret) <= MAX_SECRET):
            client.send(nack("Invalid secret: true, or the secret handed out at an earlier log-in"))
            return
        credential = m.get("account")
        if credential is not None:
            if self.config.relay_secret is None:
                client.send(nack("Invalid account credential: this lobby shares no secret with a web room "
                                 "(relaySecret)"))
                return
            if not valid_credential(self.config.relay_secret, name, credential):
                logger.info(f"{client.peer}: an invalid account credential for {name!r}")
                client.send(nack("Invalid account credential"))
                return
        account = credential is not None
        key = self.name_key(name)
        kept = self.collect.get(key)
        if kept is not None and kept[0].name == name and kept[0].proof.admits(
                account, secret if isinstance(secret, str) else None, client.own_address):
            self._collect(client, key, account, secret)
            return
        held = self.reserved.get(key)
        if held is not None and held.name == name and held.proof.admits(
                account, secret if isinstance(secret, str) else None, client.own_address):
            client.account = account
            client.secret = secret if isinstance(secret, str) else (new_secret() if secret is True else None)
            if held.room.referee is not None:
                self._return_to_seat(client, key)
            else:
                self._reconnect(client, key)
            return
        holder = self.names.get(key)
        if kept is not None and holder is None and held is None:
            held = kept[0]   # the name is held for its end to be collected
        if account and (isinstance(holder, Client) and not holder.account
                        or held is not None and not held.proof.account):
            self.accounts.add(key)   # the account's name from now on: a namesake without it is let go
            if isinstance(holder, Client):
                self._let_namesake_go(holder)
                holder = self.names.get(key)
        if holder is not None or held is not None or key in self.accounts and not account:
            client.send(nack("Username was already taken"))
            return
        if account:
            self.accounts.add(key)
        client.username, client.name_key, client.spectator = name, key, spectator
        client.account = account
        client.secret = new_secret() if secret is not None else None
        client.state = LOBBY
        self.names[key] = client
        self._ack_login(client)

    def _collect(self, client: Client, key: str, account: bool, secret: Any) -> None:
        """A log-in of a held seat whose game ended meanwhile (while the lobby was down, or
        the seat's connection lost): ACK, then what ended it; the client is in the lobby."""
        held, end = self.collect.pop(key)
        held.timer.cancel()
        client.account = account
        client.secret = secret if isinstance(secret, str) else (new_secret() if secret is True else None)
        client.username, client.name_key, client.state = held.name, key, LOBBY
        self.names[key] = client
        self._ack_login(client)
        for message in end:
            client.send(message)
        self._collected(held.room, (client,))

    def _logout(self, client: Client, _m: dict[str, Any]) -> None:
        if client.room is not None:
            client.send(nack("Player still in a room"))
            return
        client.send(ACK)
        self.lost(client, "LEFT", "logged out")

    def _pong(self, client: Client, _m: dict[str, Any]) -> None:
        client.pong.set()
