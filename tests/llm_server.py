#!/usr/bin/env python3
"""A small LLM endpoint for tests: OpenAI-compatible (`/v1/models`, `/v1/chat/completions`, server-sent events)
and Ollama (`/api/tags`, `/api/chat`, NDJSON), streaming a deterministic answer built from the context it is
given. The first path segment picks a behaviour, so one server serves every case:

  /ok/...            answers, with CORS headers          /nocors/...    answers, without CORS headers
  /auth/...          401 unless `Authorization: Bearer test-key`
  /slow/...          one word every 0.4 s                /broken/...    a malformed line mid-stream
  /truncated/...     stops before the end of the answer  /hostile/...   an answer full of HTML and script
  /silent/...        waits 3 s before answering at all   /stall/...     two words, then nothing for 20 s
  /endless/...       the answer's words over and over, until the client hangs up

The answer to Quire's LLM-assisted retrieval prompts is as deterministic: the graph traverser gets the listed
section that shares most words with the question; query parsing gets the question's capitalised names as
entities; CoT retrieval gets, after the first search, the title of the first new passage as its next query, and
after the second, the same query again (which Quire must stop as a repeat).

The only model is `quire-test` (Ollama: `quire-test:latest`); another model is a 404 naming it.
Run: python3 tests/llm_server.py [PORT]   (prints `listening on PORT`, 0 picks a free port). It stops when its
standard input closes, so a test that starts it with a pipe never leaves it running.
"""
import itertools
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODELS = {"openai": "quire-test", "ollama": "quire-test:latest"}
HOSTILE = ('<script>window.pwned = "script"</script> **Bold** claim [1]. '
           '[a link](javascript:window.pwned="link") <img src=x onerror="window.pwned=\'img\'"> '
           '<a href="#" onclick="window.pwned=\'click\'">click</a>')


QUESTION_WORDS = {"who", "what", "which", "when", "where", "how", "why", "in", "the", "is", "was", "did", "does"}


def words(text):
    return {w.lower() for w in re.findall(r"\w+", text)}


def traverse(user):
    """The listed section (or page) sharing most words with the question."""
    question = words(re.search(r"^Question: (.*)$", user, re.M).group(1)) - QUESTION_WORDS
    listed = re.findall(r"^- (.+)$", user.split("Knowledge graph paths:")[0], re.M)
    return max(listed, key=lambda item: (len(words(item) & question), " › " in item), default="ND")


def parse_query(user):
    question = re.search(r"^Question: (.*)$", user, re.M).group(1)
    names = re.findall(r"[A-Z][\w'-]*(?:\s+(?:of\s+)?[A-Z0-9][\w'-]*)*", question)
    names = [n for n in names if n.lower() not in QUESTION_WORDS]
    return json.dumps({"entities": names, "relations": []})


def chain_of_thought(user):
    searches = re.findall(r"^\d+\. (.*)$", user.split("Searches made:")[1].split("New passages:")[0], re.M)
    passage = re.search(r"^\[([^\]\n›]+)", user.split("New passages:")[1], re.M)
    if len(searches) == 1 and passage:
        return json.dumps({"scratchpad": [f"the first search found {passage.group(1).strip()}"], "done": False,
                           "next_query": passage.group(1).strip()})
    return json.dumps({"scratchpad": ["nothing new"], "done": False, "next_query": searches[-1]})


def answer_for(messages):
    """`The documents say: <first sentence of passage 1> [1].`, or that they do not say; or the reply to one of
    the LLM-assisted retrieval prompts."""
    system = next((m.get("content", "") for m in messages if m.get("role") == "system"), "")
    user = next((m.get("content", "") for m in messages if m.get("role") == "user"), "")
    if "Node#relation:Node" in system:
        return traverse(user)
    if "Extract from the user's question" in system:
        return parse_query(user)
    if "You guide a search" in system:
        return chain_of_thought(user)
    passage = re.search(r"^\[1\] [^\n]*\n([^\n]+)", user, re.M)
    if not passage:
        return "The documents do not say."
    sentence = re.split(r"(?<=[.!?])\s", passage.group(1).strip())[0].rstrip(".")
    return f"The documents say: {sentence} [1]."


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def route(self):
        parts = self.path.split("?")[0].strip("/").split("/", 1)
        return parts[0], "/" + (parts[1] if len(parts) > 1 else "")

    def cors(self, mode):
        if mode != "nocors":
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Access-Control-Allow-Headers", "authorization, content-type")
            self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")

    def reply(self, mode, status, body, content_type="application/json"):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.cors(mode)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_OPTIONS(self):
        mode, _ = self.route()
        self.send_response(204)
        self.cors(mode)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def refused(self, mode, api):
        if mode == "auth" and self.headers.get("Authorization") != "Bearer test-key":
            body = {"error": {"message": "Invalid API key"}} if api == "openai" else {"error": "unauthorized"}
            self.reply(mode, 401, json.dumps(body))
            return True
        return False

    def do_GET(self):
        mode, path = self.route()
        api = "openai" if path.startswith("/v1/") else "ollama"
        if self.refused(mode, api):
            return
        if path == "/v1/models":
            self.reply(mode, 200, json.dumps({"object": "list", "data": [{"id": MODELS["openai"], "object": "model"}]}))
        elif path == "/api/tags":
            self.reply(mode, 200, json.dumps({"models": [{"name": MODELS["ollama"]}]}))
        else:
            self.reply(mode, 404, json.dumps({"error": "not found"}))

    def do_POST(self):
        mode, path = self.route()
        api = {"/v1/chat/completions": "openai", "/api/chat": "ollama"}.get(path)
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        if api is None:
            return self.reply(mode, 404, json.dumps({"error": "not found"}))
        if self.refused(mode, api):
            return
        if mode == "silent":
            time.sleep(3)
        model = request.get("model")
        if model != MODELS[api]:
            message = f"model '{model}' not found"
            body = {"error": {"message": message}} if api == "openai" else {"error": message}
            return self.reply(mode, 404, json.dumps(body))
        text = HOSTILE if mode == "hostile" else answer_for(request.get("messages", []))
        self.stream(mode, api, text)

    def stream(self, mode, api, text):
        self.send_response(200)
        self.cors(mode)
        self.send_header("Content-Type", "text/event-stream" if api == "openai" else "application/x-ndjson")
        self.send_header("Connection", "close")
        self.end_headers()
        words = re.findall(r"\S+\s*", text)
        if mode == "endless":
            words = itertools.cycle(words)
        for index, word in enumerate(words):
            if mode == "stall" and index == 2:
                time.sleep(20)
            if mode == "endless" and self.wfile.closed:
                return
            if mode == "broken" and index == 2:
                self.write("data: {\"choices\": [{\"delta\": \n\n" if api == "openai" else "{\"message\": {\"content\n")
                return
            if mode == "truncated" and index == len(words) // 2:
                return
            if api == "openai":
                self.write("data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": word}}]}) + "\n\n")
            else:
                self.write(json.dumps({"model": MODELS[api], "message": {"role": "assistant", "content": word}, "done": False}) + "\n")
            if mode == "slow":
                time.sleep(0.4)
        if api == "openai":
            self.write("data: " + json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}) + "\n\n")
            self.write("data: [DONE]\n\n")
        else:
            self.write(json.dumps({"model": MODELS[api], "message": {"role": "assistant", "content": ""}, "done": True}) + "\n")

    def write(self, text):
        try:
            self.wfile.write(text.encode())
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.wfile.close()


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"listening on {server.server_address[1]}", flush=True)
    if not sys.stdin.isatty():
        threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
