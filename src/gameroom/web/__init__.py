"""The web room: a lobby page and match pages to watch every game live, replay it and play
at a seat in the browser (``gameroom web``). ``matches`` runs the matches and keeps what
each audience may see, ``app`` is the Starlette application (JSON API, websockets, pages),
``static`` the page files (plain HTML, JS modules and CSS: no build step)."""
