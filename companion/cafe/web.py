"""The staff's web page and JSON API (Starlette), over the dashboard's database.

The page is rendered on the server (Jinja2); it stays live through server-sent events (``/events``)
that carry the re-rendered tiles, plays and figures whenever the database moves, so the browser needs
no script library and the café's network may be offline. Charts are SVG drawn by the template.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from companion.cafe.auth import Gate
from companion.cafe.exports import bgstats_stream, csv_stream, game_name
from companion.cafe.health import Health
from companion.cafe.live import LANGS, SLOTS, Hub
from companion.cafe.store import PLAYS_PAGE, CafeStore, game_key, table_sort_key
from companion.i18n import N_, translate

COOKIE = "companion_staff"
TEMPLATES = Path(__file__).with_name("templates")
HISTORY_ROWS = 100
FIGURE_TABLES = 20        # the busiest tables in the figures (all of them: /api/figures)
STATUS_NAMES = {"in_progress": N_("playing"), "finished": N_("finished"), "abandoned": N_("abandoned"),
                "idle": N_("no game"), "unknown": N_("unknown")}
LOGIN_BODY_MAX = 4096      # a login form: a password and where to go next
TOO_MANY = N_("Too many wrong passwords. Try again in {n} seconds.")
WRONG = N_("Wrong password.")
TEMPLATE_WORDS = (N_("Messages skipped (not valid): {n}"), N_("waiting for {n} missing entries"), N_("won"),
                  N_("Won together"), N_("Lost together"), N_("Won: {names}"), N_("Retire"),
                  N_("Retire every offline table"),
                  N_("The {n} busiest of {total} tables; every table: /api/figures"), N_("BG Stats"),
                  N_("simulated"), N_("Remove the simulated plays ({n})"), N_("From"), N_("To"),
                  N_("Its SD card was restored from an older copy: its games from game {first} on are kept apart."),
                  N_("Its SD card is a copy of {table}'s: its own games from game {first} on, kept apart."),
                  N_("Its SD card is a copy of another kiosk's: its own games from game {first} on, kept apart."))
BADGES = {None: N_("live"), "broker": N_("no broker"), "disk": N_("disk full"), "subscriber": N_("not recording"),
          "rival": N_("another dashboard")}
BANNERS = {"broker": N_("No contact with the broker since {time}: {reason}. Nothing new is recorded; the kiosks keep "
                        "every play and send it when the dashboard is back."),
           "disk": N_("Nothing recorded since {time}: the dashboard's disk is full. The kiosks keep every play; "
                      "recording resumes by itself when there is room."),
           "subscriber": N_("Nothing recorded since {time}: {reason}. Restart the dashboard; the kiosks keep every "
                            "play."),
           "rival": N_("Another dashboard: {reason}. Nothing is lost: the kiosks keep every play and offer this "
                       "dashboard whatever it lacks.")}


class Renderer:
    """The page's pieces in one language (the live hub renders each change once per language)."""

    def __init__(self, env: Environment, lang: str):
        self.env = env
        self.lang = lang
        self.values = {"lang": lang, "t": self.t, "game_name": self.game_name, "status_name": self.status_name,
                       "local_time": _local_time}
        self._tile: Any = env.get_template("tile.html").make_module(self.values)
        self._row: Any = env.get_template("play_row.html").make_module(self.values)
        self.figures_source: Callable[[], dict] | None = None

    def t(self, msgid: str) -> str:
        return translate(msgid, self.lang)

    def game_name(self, game: str | None, mode: str | None = None) -> str:
        return game_name(game_key(game, mode) if mode else game, self.lang)

    def status_name(self, status: str) -> str:
        return self.t(STATUS_NAMES.get(status, status))

    def render(self, name: str, **values) -> str:
        return self.env.get_template(name).render(**self.values, **values)

    def tile_slots(self, tb: dict) -> dict[str, str]:
        return {slot: str(getattr(self._tile, slot)(tb)) for slot in SLOTS}

    def tile(self, tb: dict, slots: dict[str, str]) -> str:
        return str(self._tile.tile(tb, {k: Markup(v) for k, v in slots.items()}))

    def play_row(self, p: dict) -> str:
        return str(self._row.row(p))

    def tiles(self, tables: list[dict]) -> str:
        return self.render("tiles.html", tiles=[Markup(self.tile(tb, self.tile_slots(tb))) for tb in tables])

    def plays(self, plays: list[dict]) -> str:
        return self.render("plays.html", plays=plays, keep=HISTORY_ROWS)

    def figures(self) -> str:
        assert self.figures_source is not None
        figures = self.figures_source()
        per_table = sorted(figures["per_table"].items(), key=lambda kv: (-kv[1], table_sort_key(kv[0])))
        return self.render("figures.html", figures=figures,
                           per_game_rows=[(self.game_name(g), n) for g, n in figures["per_game"].items()],
                           per_table_rows=per_table[:FIGURE_TABLES], tables_count=len(per_table),
                           busy_hours=[(f"{h:02d}:00", n) for h, n in enumerate(figures["hours"]) if n])


class Dashboard:
    def __init__(self, store: CafeStore, gate: Gate, health=None, poll_s: float = 0.5,
                 allowed_hosts: list[str] | None = None, secure_cookie: bool = False):
        self.store = store
        self.gate = gate
        self.health = health if health is not None else Health()
        self.secure_cookie = secure_cookie
        self.env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]))
        self.renderers = {lang: Renderer(self.env, lang) for lang in LANGS}
        for r in self.renderers.values():
            r.figures_source = store.figures
        self.hub = Hub(store, self.renderers.__getitem__, tick_s=poll_s, health=self.health_view)
        self.app = Starlette(routes=[
            Route("/healthz", self.healthz),
            Route("/style.css", self.asset),
            Route("/live.js", self.asset),
            Route("/login", self.login_page, methods=["GET"]),
            Route("/login", self.login, methods=["POST"]),
            Route("/logout", self.logout, methods=["POST"]),
            Route("/tables/retire", self.retire, methods=["POST"]),
            Route("/plays/remove-simulated", self.remove_simulated, methods=["POST"]),
            Route("/", self.page),
            Route("/events", self.events),
            Route("/api/tables", self.api_tables),
            Route("/api/plays", self.api_plays),
            Route("/api/figures", self.api_figures),
            Route("/export/plays.csv", self.export_csv),
            Route("/export/plays.bgsplay", self.export_bgstats),
        ])
        self.app.add_middleware(_LoginRequired, dashboard=self)
        self.app.add_middleware(_Headers)
        self.app.add_middleware(_AllowedHosts, allowed=allowed_hosts or ["*"])

    def render(self, name: str, lang: str, **values) -> str:
        return self.renderers[lang].render(name, **values)

    # -- routes ---------------------------------------------------------------------------------
    def health_view(self, lang: str) -> dict:
        """The badge's state and words, and the banner (empty when live)."""
        problem = self.health.problem()
        if problem is None:
            return {"state": "live", "badge": translate(BADGES[None], lang), "banner": ""}
        part, reason, since = problem
        banner = translate(BANNERS[part], lang).format(time=datetime.fromtimestamp(since).strftime("%H:%M"),
                                                       reason=reason.render(lang))
        return {"state": part, "badge": translate(BADGES[part], lang), "banner": banner}

    async def healthz(self, request: Request) -> Response:
        sentence = self.health.sentence()
        if sentence is None:
            return PlainTextResponse("ok")
        return PlainTextResponse(sentence, status_code=503)

    async def asset(self, request: Request) -> Response:
        name = request.url.path.lstrip("/")
        kind = "text/css" if name.endswith(".css") else "text/javascript"
        return Response((TEMPLATES / name).read_text(encoding="utf-8"), media_type=f"{kind}; charset=utf-8",
                        headers={"Cache-Control": "no-cache"})

    async def page(self, request: Request) -> Response:
        lang = _lang(request)
        self.hub.ensure_started()
        since, tiles, figures = self.hub.snapshot(lang)      # kept per change by the live hub
        r = self.renderers[lang]
        plays, simulated = await asyncio.to_thread(lambda: (r.plays(self.store.plays(HISTORY_ROWS)),
                                                            self.store.simulated_plays()))
        html = self.render("page.html", lang, login=self.gate.required, since=since,
                           tiles_html=r.render("tiles.html", tiles=[Markup(t) for t in tiles]),
                           plays_html=plays, figures_html=figures, health=self.health_view(lang),
                           simulated=simulated)
        response = HTMLResponse(html)
        if request.query_params.get("lang") in ("en", "es"):
            response.set_cookie("lang", lang, max_age=365 * 86400, samesite="strict")
        return response

    async def events(self, request: Request) -> Response:
        lang = _lang(request)
        since = request.headers.get("last-event-id") or request.query_params.get("since")
        return StreamingResponse(self.hub.stream(lang, since, request.is_disconnected), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    async def api_tables(self, request: Request) -> Response:
        tables = await asyncio.to_thread(self.store.tables)
        return JSONResponse({"tables": [{k: v for k, v in tb.items() if k != "sort"} for tb in tables]})

    async def api_plays(self, request: Request) -> Response:
        """The newest plays, a page at a time: ``?limit=N`` (up to 10,000; default :data:`PLAYS_PAGE`)
        from ``&offset=M``, with ``next``, the next page's address, while there are more: a year of
        plays is never one answer."""
        keys = ("table", "game", "status", "started", "ended", "actions", "players")
        limit, offset = _int_param(request, "limit", 1, 10_000), _int_param(request, "offset", 0, None)
        if isinstance(limit, Response):
            return limit
        if isinstance(offset, Response):
            return offset
        limit = limit or PLAYS_PAGE
        plays = await asyncio.to_thread(self.store.plays, limit, offset or 0)
        body: dict = {"plays": [{k: p[k] for k in keys} for p in plays]}
        if len(plays) == limit:
            body["next"] = f"/api/plays?limit={limit}&offset={(offset or 0) + limit}"
        return JSONResponse(body)

    async def api_figures(self, request: Request) -> Response:
        return JSONResponse(await asyncio.to_thread(self.store.figures))

    async def export_csv(self, request: Request) -> Response:
        filters = _export_filters(request)
        if isinstance(filters, Response):
            return filters
        return StreamingResponse(csv_stream(self.store.plays_in_pages(**filters)), media_type="text/csv; charset=utf-8",
                                 headers={"Content-Disposition": f'attachment; filename="{_stamp("plays")}.csv"'})

    async def export_bgstats(self, request: Request) -> Response:
        """Finished plays for BG Stats: all of them, or ``?play=ID``, ``?table=T01``, ``?from=`` and
        ``?to=`` (dates, YYYY-MM-DD, both included)."""
        filters = _export_filters(request)
        if isinstance(filters, Response):
            return filters
        pages = self.store.plays_in_pages(finished=True, **filters)
        return StreamingResponse(bgstats_stream(pages), media_type="application/json",
                                 headers={"Content-Disposition": f'attachment; filename="{_stamp("plays")}.bgsplay"'})

    async def remove_simulated(self, request: Request) -> Response:
        """Remove every play of a simulated table (``cafe simulate``) from the history, figures and exports."""
        done = await asyncio.to_thread(self.store.remove_simulated)
        if "application/json" in request.headers.get("accept", ""):
            return JSONResponse({"removed": done["plays"], "retired": done["tables"]})
        return RedirectResponse("/", status_code=303)

    async def login_page(self, request: Request, error: str | None = None, status: int = 200) -> Response:
        lang = _lang(request)
        page = self.render("login.html", lang, error=error, next=_safe_next(request.query_params.get("next")))
        return HTMLResponse(page, status_code=status)

    async def login(self, request: Request) -> Response:
        lang = _lang(request)
        address = request.client.host if request.client else "?"
        wait = self.gate.wait_s(address)
        if wait > 0:
            msg = translate(TOO_MANY, lang).format(n=int(wait) + 1)
            return await self.login_page(request, msg, 429)
        body = await _small_body(request, LOGIN_BODY_MAX)
        if body is None:
            return PlainTextResponse(f"a login form is at most {LOGIN_BODY_MAX} bytes", status_code=413)
        form = parse_qs(body.decode("utf-8", "replace"))
        # scrypt takes tens of milliseconds on purpose: in a thread, so the page and the API answer meanwhile
        token = await asyncio.to_thread(self.gate.login, address, (form.get("password") or [""])[0])
        if token is None:
            return await self.login_page(request, translate(WRONG, lang), 401)
        response = RedirectResponse(_safe_next((form.get("next") or ["/"])[0]), status_code=303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", max_age=12 * 3600,
                            secure=self.secure_cookie)
        return response

    async def retire(self, request: Request) -> Response:
        """Take a table (``table=NAME``) or every offline one (``all=offline``) off the page; its plays
        stay, and it comes back when its kiosk next says something."""
        body = await _small_body(request, LOGIN_BODY_MAX)
        if body is None:
            return PlainTextResponse(f"a form here is at most {LOGIN_BODY_MAX} bytes", status_code=413)
        form = parse_qs(body.decode("utf-8", "replace"))
        if (form.get("all") or [""])[0] == "offline":
            names = None
        elif form.get("table"):
            names = form["table"][:1000]
        else:
            return PlainTextResponse("say which table: table=NAME, or all=offline", status_code=400)
        gone = await asyncio.to_thread(self.store.retire, names)
        if "application/json" in request.headers.get("accept", ""):
            return JSONResponse({"retired": gone})
        return RedirectResponse("/", status_code=303)

    async def logout(self, request: Request) -> Response:
        self.gate.logout(request.cookies.get(COOKIE))
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE, httponly=True, samesite="strict", secure=self.secure_cookie)
        return response


async def _small_body(request: Request, limit: int) -> bytes | None:
    """The request's body, or None once it passes ``limit`` bytes (nothing more is read)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return body


class _AllowedHosts:
    """Only the host names the dashboard was told (``--allowed-hosts``): a page without a login on
    127.0.0.1 answers nothing to a web site whose name was pointed at 127.0.0.1 (DNS rebinding).
    ``[::1]:8080`` is the host ``::1``; ``*.example.org`` allows its subdomains."""

    def __init__(self, app, allowed: list[str]):
        self.app = app
        self.any = "*" in allowed
        self.names = {a.strip("[]").lower() for a in allowed if not a.startswith("*.")}
        self.suffixes = tuple(a[1:].lower() for a in allowed if a.startswith("*."))

    def ok(self, header: str) -> bool:
        host = header.strip().lower()
        if host.startswith("["):
            host = host[1:].split("]", 1)[0]
        elif host.count(":") == 1:
            host = host.split(":", 1)[0]
        return host in self.names or (bool(self.suffixes) and host.endswith(self.suffixes))

    async def __call__(self, scope, receive, send):
        if self.any or scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
        if self.ok(host):
            return await self.app(scope, receive, send)
        await PlainTextResponse("this dashboard does not answer to that host name (--allowed-hosts)",
                                status_code=400)(scope, receive, send)


class _Headers:
    """What every answer says about itself: only this site's own scripts, styles and pictures, never
    inside another site's frame, no guessing of content types, no address leaked to other sites."""

    HEADERS = [
        (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; style-src 'self'; "
                                     b"script-src 'self'; connect-src 'self'; frame-ancestors 'none'; "
                                     b"base-uri 'none'; form-action 'self'; object-src 'none'"),
        (b"x-frame-options", b"DENY"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"same-origin"),
    ]

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (k, v) for k, v in self.HEADERS if k not in names]
            await send(message)
        await self.app(scope, receive, with_headers)


class _LoginRequired:
    """Everything but ``/healthz`` and the login form needs the staff's session cookie."""

    OPEN = ("/healthz", "/login", "/style.css")

    def __init__(self, app, dashboard: Dashboard):
        self.app = app
        self.dashboard = dashboard

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] == "POST" and not _same_origin(Request(scope)):
            # another site's form (the login's cookie is SameSite=Strict; without a login only this does it)
            await PlainTextResponse("a form from another site is not taken", status_code=403)(scope, receive, send)
            return
        if scope["type"] != "http" or scope["path"] in self.OPEN or not self.dashboard.gate.required:
            return await self.app(scope, receive, send)
        request = Request(scope)
        if self.dashboard.gate.valid(request.cookies.get(COOKIE)):
            return await self.app(scope, receive, send)
        response: Response
        if scope["path"].startswith(("/api/", "/export/", "/events")):
            response = JSONResponse({"error": "log in first: POST /login"}, status_code=401)
        else:
            target = scope["path"] + ("?" + scope["query_string"].decode() if scope["query_string"] else "")
            response = RedirectResponse("/login?next=" + quote(target, safe=""), status_code=303)
        await response(scope, receive, send)


def _same_origin(request: Request) -> bool:
    """A POST from this site's own page: its Origin (or, lacking one, its Referer) names this host."""
    source = request.headers.get("origin") or request.headers.get("referer")
    if not source or source == "null":
        return source is None             # a tool without a browser (curl) says neither
    host = request.headers.get("host", "")
    return urlsplit(source).netloc.lower() == host.lower()


def _lang(request: Request) -> str:
    asked = request.query_params.get("lang") or request.cookies.get("lang")
    if asked in ("en", "es"):
        return asked
    header = request.headers.get("accept-language", "")
    return "es" if header.lower().startswith("es") else "en"


def _safe_next(target: str | None) -> str:
    """Only a path of this site (never another host) after logging in."""
    if not target or not target.startswith("/") or target.startswith("//"):
        return "/"
    return target


def _int_param(request: Request, name: str, low: int, high: int | None) -> int | None | Response:
    text = request.query_params.get(name)
    if text is None:
        return None
    if not text.isdigit() or int(text) < low or (high is not None and int(text) > high):
        span = f"{low} to {high}" if high is not None else f"{low} or more"
        return JSONResponse({"error": f"?{name}={text}: a whole number from {span}"}, status_code=400)
    return int(text)


def _export_filters(request: Request) -> dict | Response:
    """Which plays an export holds: ``play=ID`` (as each play's link names it), ``table=T01``, and a
    range of dates the plays started on, ``from=YYYY-MM-DD`` and ``to=YYYY-MM-DD`` (both included,
    the dashboard's local dates)."""
    q = request.query_params
    filters: dict = {}
    if q.get("play"):
        filters["play"] = q["play"]
    if q.get("table"):
        filters["table"] = q["table"]
    for name, key, days in (("from", "since", 0), ("to", "until", 1)):
        text = q.get(name)
        if not text:
            continue
        try:
            day = datetime.strptime(text, "%Y-%m-%d")
        except ValueError:
            return JSONResponse({"error": f"?{name}={text}: a date, YYYY-MM-DD"}, status_code=400)
        filters[key] = (day + timedelta(days=days)).timestamp()
    return filters


def _local_time(iso: str | None) -> str:
    return "" if not iso else datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")


def _stamp(name: str) -> str:
    return f"cafe-{name}-{datetime.now().strftime('%Y%m%d-%H%M')}"
