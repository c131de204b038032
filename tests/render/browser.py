# SPDX-License-Identifier: MIT
"""Loads a page in headless Chromium over the DevTools protocol (--remote-debugging-pipe: JSON
messages separated by NUL on file descriptors 3 and 4), with the network off, and returns what
happened: console errors and uncaught exceptions, every request that failed or left the page's
file, the DOM after scripts ran, and a PNG screenshot. Standard library only."""
import base64
import fcntl
import json
import os
import select
import subprocess
import tempfile
import time


class Load:
    def __init__(self):
        self.console_errors = []  # console.error, uncaught exceptions, "Failed to load resource"
        self.failed_requests = []  # loading failures and any request that is not file: or data:
        self.dom = None  # document.documentElement.outerHTML after the load
        self.png = None  # the screenshot's bytes
        self.problem = None  # the browser itself failed (did not start, timed out)
        self.urls = {}  # request id -> URL


class _Pipe:
    def __init__(self, to_browser, from_browser):
        self.out, self.inp, self.buffer, self.next_id = to_browser, from_browser, b"", 0

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.out, json.dumps(message).encode() + b"\0")
        return self.next_id

    def receive(self, deadline):
        """The next message, or None when `deadline` (time.monotonic) has passed."""
        while b"\0" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.inp], [], [], remaining)[0]:
                return None
            chunk = os.read(self.inp, 1 << 20)
            if not chunk:
                raise RuntimeError("the browser closed its DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)


def _record(load, message):
    method, params = message.get("method"), message.get("params", {})
    if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
        text = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
        load.console_errors.append(f"console.{params['type']}: {text}")
    elif method == "Runtime.exceptionThrown":
        details = params["exceptionDetails"]
        text = details.get("exception", {}).get("description") or details.get("text")
        load.console_errors.append(f"uncaught exception: {text.splitlines()[0]}")
    elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
        entry = params["entry"]
        load.console_errors.append(f"{entry['source']}: {entry['text']} {entry.get('url', '')}".strip())
    elif method == "Network.requestWillBeSent":
        url = load.urls[params["requestId"]] = params["request"]["url"]
        if not url.startswith(("file:", "data:", "about:")):
            load.failed_requests.append(f"external request: {url[:120]}")
    elif method == "Network.loadingFailed":
        url = load.urls.get(params["requestId"], params["requestId"])
        load.failed_requests.append(f"failed request: {params.get('errorText')} {url[:120]}")


def load_page(chromium, path, width=1000, height=1400, timeout=60):
    """Opens file://`path` in a fresh headless Chromium (its own profile, network offline)."""
    load = Load()
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()
    with tempfile.TemporaryDirectory(prefix="exactattn-chromium-") as profile:
        def fds():  # the child's 3 and 4 are the DevTools pipe ends (moved clear of 3, 4 first)
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser_r, from_browser_w)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)
        argv = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
                "--remote-debugging-pipe", f"--user-data-dir={profile}", "--no-first-run",
                "--disable-extensions", "--disable-background-networking", "--disable-sync",
                "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
                f"--window-size={width},{height}", "--hide-scrollbars", "about:blank"]
        # close_fds=False, not pass_fds=(3, 4, ...): pass_fds makes the child touch the
        # parent's own fds 3 and 4 before preexec_fn runs, and with pages loaded from several
        # threads another thread may have just closed them (EBADF, seen in CI). Every other fd
        # Python opens is non-inheritable (PEP 446), so only the dup2'd 3 and 4 reach Chromium.
        browser = subprocess.Popen(argv, preexec_fn=fds, close_fds=False,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        pipe = _Pipe(to_browser_w, from_browser_r)
        deadline = time.monotonic() + timeout

        def call(method, params=None, session=None):
            wanted = pipe.send(method, params, session)
            while True:
                message = pipe.receive(deadline)
                if message is None:
                    raise TimeoutError(f"no answer to {method} in {timeout} s")
                if message.get("id") == wanted:
                    if "error" in message:
                        raise RuntimeError(f"{method}: {message['error'].get('message')}")
                    return message.get("result", {})
                _record(load, message)

        try:
            # A page of our own: the one the command line opens may not exist yet.
            page = call("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = call("Target.attachToTarget", {"targetId": page, "flatten": True})["sessionId"]
            for domain in ("Runtime", "Log", "Network", "Page"):
                call(f"{domain}.enable", session=session)
            call("Network.emulateNetworkConditions", {"offline": True, "latency": 0,
                 "downloadThroughput": -1, "uploadThroughput": -1}, session)
            call("Page.navigate", {"url": "file://" + os.path.abspath(path)}, session)
            while True:  # until the load event, then let late messages (console, images) arrive
                message = pipe.receive(deadline)
                if message is None:
                    raise TimeoutError(f"the page did not load in {timeout} s")
                _record(load, message)
                if message.get("method") == "Page.loadEventFired":
                    break
            settle = time.monotonic() + 0.3
            while (message := pipe.receive(min(settle, deadline))) is not None:
                _record(load, message)
            load.dom = call("Runtime.evaluate", {"expression": "document.documentElement.outerHTML",
                                                 "returnByValue": True}, session)["result"]["value"]
            shot = call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True},
                        session)
            load.png = base64.b64decode(shot["data"])
            pipe.send("Browser.close")
        except (TimeoutError, RuntimeError, KeyError) as e:
            load.problem = f"chromium: {type(e).__name__}: {e}"
        finally:
            os.close(to_browser_w)
            os.close(from_browser_r)
            try:
                browser.wait(timeout=10)
            except subprocess.TimeoutExpired:
                browser.kill()
                browser.wait()
    return load
