"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol.

Scripted, not recorded: each test queues the replies it wants (a JSON answer, malformed text, an
HTTP status, a delay) and the server pops one per request, then inspects ``server.requests`` to
see exactly what the client sent. It runs in a thread on a random free port, with the standard
library only, so the tests exercise the real ``openai`` client, real sockets and real timeouts.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Reply:
    """One scripted reply. ``content`` becomes the assistant message of a 200 completion;
    ``status`` != 200 sends ``error`` as an OpenAI-style error body; ``delay_s`` sleeps first."""

    content: str | None = None
    status: int = 200
    error: str = "scripted error"
    delay_s: float = 0.0
    prompt_tokens: int = 100
    completion_tokens: int = 20
    finish_reason: str = "stop"
    refusal: str | None = None
    drop: bool = False
    """Close the connection without any response (a server crashing mid-request)."""


def answer(obj: Any, **kw: Any) -> Reply:
    """A 200 reply whose content is ``obj`` as JSON."""
    return Reply(content=json.dumps(obj), **kw)


def malformed(text: str = '{"answer": "unterminated', **kw: Any) -> Reply:
    return Reply(content=text, **kw)


def status(code: int, error: str = "scripted error", **kw: Any) -> Reply:
    return Reply(status=code, error=error, **kw)


@dataclass
class FakeOpenAI:
    """The server state: the reply script, what was received, and where it listens."""

    script: list[Reply] = field(default_factory=list)
    default: Reply | None = None
    responder: Callable[[dict], Reply] | None = None
    """When the script is empty: build the reply from the request body (for end-to-end runs)."""
    reject_json_schema: bool = False
    """Answer 400 to response_format json_schema, as servers without structured outputs do."""
    reject_response_format: bool = False
    """Answer 400 to any response_format (json_object too)."""
    requests: list[dict] = field(default_factory=list)
    headers: list[dict] = field(default_factory=list)
    host: str = "127.0.0.1"
    port: int = 0
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def completions(self) -> list[dict]:
        """Request bodies received on /v1/chat/completions."""
        return [r for r in self.requests if r.get("_path", "").endswith("/chat/completions")]

    def queue(self, *replies: Reply) -> "FakeOpenAI":
        with self._lock:
            self.script.extend(replies)
        return self

    def _next(self, body: dict) -> Reply:
        rf = body.get("response_format") or {}
        if rf and self.reject_response_format:
            return status(400, f"response_format {rf.get('type')} is not supported by this server")
        if rf.get("type") == "json_schema" and self.reject_json_schema:
            return status(400, "response_format json_schema is not supported; use json_object")
        with self._lock:
            if self.script:
                return self.script.pop(0)
        if self.responder is not None:
            try:
                return self.responder(body)
            except Exception as e:  # a bug in a test's responder shows up as a 500 with its message
                return status(500, f"fake responder failed: {type(e).__name__}: {e}")
        if self.default is not None:
            return self.default
        return status(500, "fake server: script exhausted")

    def start(self) -> "FakeOpenAI":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep pytest output clean
                pass

            def _send(self, code: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def do_GET(self) -> None:  # /v1/models, for completeness
                self._send(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                body["_path"] = self.path
                with fake._lock:
                    fake.requests.append(body)
                    fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                reply = fake._next(body)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.drop:
                    self.close_connection = True
                    try:
                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    return
                if reply.status != 200:
                    self._send(
                        reply.status,
                        {"error": {"message": reply.error, "type": "scripted", "param": None, "code": None}},
                    )
                    return
                message: dict[str, Any] = {"role": "assistant", "content": reply.content}
                if reply.refusal is not None:
                    message["refusal"] = reply.refusal
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-fake-{len(fake.requests)}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "fake-model"),
                        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
                        "usage": {
                            "prompt_tokens": reply.prompt_tokens,
                            "completion_tokens": reply.completion_tokens,
                            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
                        },
                    },
                )

        server = ThreadingHTTPServer((self.host, 0), Handler)
        server.daemon_threads = True
        server.block_on_close = False  # a handler still sleeping past a client timeout must not hang stop()
        self._server = server
        self.port = server.server_address[1]
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


PASSAGE_HEAD = re.compile(r"^<<<PASSAGE (?P<id>\S+) .*?lines=(?P<a>\d+)-(?P<b>\d+)", re.M)


def passages_in(body: dict) -> dict[str, tuple[int, int, list[str]]]:
    """passage id -> (line_start, line_end, line texts) parsed from the user message, as a model
    would read it."""
    user = next((m["content"] for m in body.get("messages", []) if m.get("role") == "user"), "")
    out = {}
    for m in PASSAGE_HEAD.finditer(user):
        end = user.find(f"<<<END {m.group('id')}>>>", m.end())
        block = user[user.index("\n", m.end()) + 1 : end].splitlines()
        out[m.group("id")] = (int(m.group("a")), int(m.group("b")), block)
    return out


def closed_port_url() -> str:
    """A base URL on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
