"""A W3C WebDriver client over plain HTTP (chromedriver and headless Chromium), the few commands the console's
browser tests need. Environment: STRATUS_URL (server root), STRATUS_SCREENSHOTS (directory), CHROMEDRIVER (path,
default /usr/bin/chromedriver), CHROME_ARGS (more browser arguments)."""
import base64, http.server, os, socket, subprocess, sys, threading, time, traceback
import requests

BASE = os.environ["STRATUS_URL"].rstrip("/")
SHOTS = os.environ.get("STRATUS_SCREENSHOTS", "screenshots")
DRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


class WebDriver:
    """The few WebDriver commands the flows need, over plain HTTP."""

    def __init__(self):
        s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
        self.proc = subprocess.Popen([DRIVER, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                if requests.get(self.url + "/status", timeout=1).ok: break
            except requests.RequestException: time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000"]
                    + os.environ.get("CHROME_ARGS", "").split()}}}}
        r = requests.post(self.url + "/session", json=caps, timeout=60).json()
        if "sessionId" not in r.get("value", {}): raise RuntimeError(f"no browser session: {r}")
        self.session = f"{self.url}/session/{r['value']['sessionId']}"
        # Scripts (axe-core's run over a long page) may take a while on a machine busy with the rest of the suite.
        self.cmd("POST", "/timeouts", {"script": 120000})

    def cmd(self, method, path, body=None):
        r = requests.request(method, self.session + path, json=body, timeout=60).json()
        if isinstance(r.get("value"), dict) and "error" in r["value"]:
            raise RuntimeError(f"{path}: {r['value']['error']}: {r['value'].get('message', '')[:300]}")
        return r.get("value")

    def go(self, path): self.cmd("POST", "/url", {"url": BASE + path})
    def find(self, css): return self.cmd("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]
    def finds(self, css): return [e[ELEMENT] for e in self.cmd("POST", "/elements", {"using": "css selector", "value": css})]
    def retrying(self, action):
        """A page may still be replacing the previous one after a click: retry while elements go stale."""
        for attempt in range(50):
            try: return action()
            except RuntimeError as e:
                if attempt == 49 or ("stale element" not in str(e) and "no such element" not in str(e)): raise
                time.sleep(0.1)
    def type(self, css, text):
        def act():
            e = self.find(css); self.cmd("POST", f"/element/{e}/clear", {}); self.cmd("POST", f"/element/{e}/value", {"text": text})
        self.retrying(act)
    def click(self, css): self.retrying(lambda: self.cmd("POST", f"/element/{self.find(css)}/click", {}))
    def select(self, css, value): self.click(css + ' option[value="' + value + '"]')
    def text(self, css="body"): return self.retrying(lambda: self.cmd("GET", f"/element/{self.find(css)}/text"))
    def wait_text(self, needle, css="body"):
        """After a click the next page may not be there yet: wait (up to 10 s) for it to show `needle`."""
        for _ in range(100):
            try:
                if needle in self.cmd("GET", f"/element/{self.find(css)}/text"): return True
            except RuntimeError: pass
            time.sleep(0.1)
        return False
    def path(self): return self.cmd("GET", "/url")[len(BASE):]
    def accept_alert(self):
        try: self.cmd("POST", "/alert/accept", {})
        except RuntimeError: pass
    def shot(self, name):
        os.makedirs(SHOTS, exist_ok=True)
        with open(os.path.join(SHOTS, name + ".png"), "wb") as f: f.write(base64.b64decode(self.cmd("GET", "/screenshot")))
    def script(self, source, *args): return self.cmd("POST", "/execute/sync", {"script": source, "args": list(args)})
    def script_async(self, source, *args): return self.cmd("POST", "/execute/async", {"script": source, "args": list(args)})
    def cdp(self, command, params):
        """A Chrome DevTools Protocol command through chromedriver (e.g. emulated media)."""
        return self.cmd("POST", "/goog/cdp/execute", {"cmd": command, "params": params})
    def window(self, width, height): self.cmd("POST", "/window/rect", {"width": width, "height": height})
    def quit(self):
        try: requests.delete(self.session, timeout=10)
        finally:
            # chromedriver can outlive a SIGTERM: wait a little, then make sure.
            self.proc.terminate()
            try: self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)


def expect(cond, what):
    if not cond: raise AssertionError(what)


def wait(b, script, what, seconds=20):
    """Runs `script` in the page until it answers something truthy, which it returns."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = b.script(script)
        if value: return value
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


def serve(port, page_for):
    """An app's pages on 127.0.0.1:`port`, on a thread: `page_for(path)` is each GET's HTML. Answers the server."""
    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = page_for(self.path).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args): pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def run(name, steps, server=None):
    """Runs `steps(b)` in a fresh browser; a failure prints its traceback, saves the screenshot `name`-failure and
    exits 1. The browser, and `server`, stop either way."""
    b = WebDriver()
    try:
        steps(b)
    except Exception:
        traceback.print_exc()
        try: b.shot(name + "-failure")
        except Exception: pass
        sys.exit(1)
    finally:
        b.quit()
        if server: server.shutdown()
