"""The staff's web page and JSON API (Starlette), over the dashboard's database.

The page is rendered on the server (Jinja2); it stays live through server-sent events (``/events``)
that carry the re-rendered tiles, plays and figures whenever the database moves, so the browser needs
no script library and the café's network may be offline. Charts are SVG drawn by the template.
"""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from pathlib import Path
from urllib.parse import parse_qs, quote

from jinja2 import Environment, FileSystemLoader, select_autoescape
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
from companion.cafe.exports import bgstats, game_name, plays_csv
from companion.cafe.health import Health
from companion.cafe.store import CafeStore
from companion.i18n import N_, translate

COOKIE = "companion_staff"
TEMPLATES = Path(__file__).with_name("templates")
HISTORY_ROWS = 100
STATUS_NAMES = {"in_progress": N_("playing"), "finished": N_("finished"), "abandoned": N_("abandoned"),
                "idle": N_("no game"), "unknown": N_("unknown")}
TOO_MANY = N_("Too many wrong passwords. Try again in {n} seconds.")
WRONG = N_("Wrong password.")
TEMPLATE_WORDS = (N_("Messages skipped (not valid): {n}"), N_("waiting for {n} missing entries"))
BADGES = {None: N_("live"), "broker": N_("no broker"), "disk": N_("disk full"), "subscriber": N_("not recording")}
BANNERS = {"broker": N_("No contact with the broker since {time}: {reason}. Nothing new is recorded; the kiosks keep "
                        "every play and send it when the dashboard is back."),
           "disk": N_("Nothing recorded since {time}: the dashboard's disk is full. The kiosks keep every play; "
                      "recording resumes by itself when there is room."),
           "subscriber": N_("Nothing recorded since {time}: {reason}. Restart the dashboard; the kiosks keep every "
                            "play.")}


class Dashboard:
    def __init__(self, store: CafeStore, gate: Gate, health=None, poll_s: float = 0.5):
        self.store = store
        self.gate = gate
        self.health = health if health is not None else Health()
        self.poll_s = poll_s
        self.env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]))
        self.app = Starlette(routes=[
            Route("/healthz", self.healthz),
            Route("/login", self.login_page, methods=["GET"]),
            Route("/login", self.login, methods=["POST"]),
            Route("/logout", self.logout, methods=["POST"]),
            Route("/", self.page),
            Route("/events", self.events),
            Route("/api/tables", self.api_tables),
            Route("/api/plays", self.api_plays),
            Route("/api/figures", self.api_figures),
            Route("/export/plays.csv", self.export_csv),
            Route("/export/plays.bgsplay", self.export_bgstats),
        ])
        self.app.add_middleware(_LoginRequired, dashboard=self)

    # -- rendering ------------------------------------------------------------------------------
    def render(self, name: str, lang: str, **values) -> str:
        def t(msgid: str) -> str:
            return translate(msgid, lang)

        def status_name(status: str) -> str:
            return t(STATUS_NAMES.get(status, status))
        return self.env.get_template(name).render(lang=lang, t=t, game_name=game_name, status_name=status_name,
                                                  local_time=_local_time, **values)

    def parts(self, lang: str, which=("tiles", "plays", "figures")) -> dict[str, str]:
        values: dict = {}
        if "tiles" in which:
            values["tables"] = self.store.tables()
        if "plays" in which:
            values["plays"] = self.store.plays(HISTORY_ROWS)
        if "figures" in which:
            figures = self.store.figures()
            values.update(figures=figures,
                          per_game_rows=[(game_name(g), n) for g, n in figures["per_game"].items()],
                          per_table_rows=list(figures["per_table"].items()),
                          busy_hours=[(f"{h:02d}:00", n) for h, n in enumerate(figures["hours"]) if n])
        return {part: self.render(f"{part}.html", lang, **values) for part in which}

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

    async def page(self, request: Request) -> Response:
        lang = _lang(request)
        parts = self.parts(lang)
        html = self.render("page.html", lang, login=self.gate.required, health=self.health_view(lang),
                           rejected=self.store.rejected_total(), **_parts_as_values(parts))
        response = HTMLResponse(html)
        if request.query_params.get("lang") in ("en", "es"):
            response.set_cookie("lang", lang, max_age=365 * 86400, samesite="strict")
        return response

    async def events(self, request: Request) -> Response:
        lang = _lang(request)

        async def stream():
            seen: tuple[int | None, int | None] = (None, None)
            health: dict | None = None
            while not await request.is_disconnected():
                now_health = self.health_view(lang)
                if now_health != health:
                    health = now_health
                    yield f"event: health\ndata: {json.dumps(health)}\n\n"
                now = (self.store.tiles_version, self.store.plays_version)
                which = (["tiles"] if now[0] != seen[0] else []) + (["plays", "figures"] if now[1] != seen[1] else [])
                seen = now
                for part, html in self.parts(lang, which).items():
                    data = "\n".join(f"data: {line}" for line in html.splitlines() or [""])
                    yield f"event: {part}\n{data}\n\n"
                if not which:
                    yield ": still here\n\n"     # keeps proxies from closing a quiet stream
                await asyncio.sleep(self.poll_s)
        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    async def api_tables(self, request: Request) -> Response:
        return JSONResponse({"tables": self.store.tables()})

    async def api_plays(self, request: Request) -> Response:
        keys = ("table", "game", "status", "started", "ended", "actions", "players")
        return JSONResponse({"plays": [{k: p[k] for k in keys} for p in self.store.plays()]})

    async def api_figures(self, request: Request) -> Response:
        return JSONResponse(self.store.figures())

    async def export_csv(self, request: Request) -> Response:
        return Response(plays_csv(self.store.plays()), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{_stamp("plays")}.csv"'})

    async def export_bgstats(self, request: Request) -> Response:
        body = json.dumps(bgstats(self.store.plays()), ensure_ascii=False, indent=1)
        return Response(body, media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{_stamp("plays")}.bgsplay"'})

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
        form = parse_qs((await request.body()).decode("utf-8", "replace"))
        token = self.gate.login(address, (form.get("password") or [""])[0])
        if token is None:
            return await self.login_page(request, translate(WRONG, lang), 401)
        response = RedirectResponse(_safe_next((form.get("next") or ["/"])[0]), status_code=303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", max_age=12 * 3600)
        return response

    async def logout(self, request: Request) -> Response:
        self.gate.logout(request.cookies.get(COOKIE))
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE)
        return response


class _LoginRequired:
    """Everything but ``/healthz`` and the login form needs the staff's session cookie."""

    OPEN = ("/healthz", "/login")

    def __init__(self, app, dashboard: Dashboard):
        self.app = app
        self.dashboard = dashboard

    async def __call__(self, scope, receive, send):
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


def _parts_as_values(parts: dict[str, str]) -> dict:
    return {"tiles_html": parts["tiles"], "plays_html": parts["plays"], "figures_html": parts["figures"]}


def _local_time(iso: str | None) -> str:
    return "" if not iso else datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")


def _stamp(name: str) -> str:
    return f"cafe-{name}-{datetime.now().strftime('%Y%m%d-%H%M')}"
