#!/usr/bin/env python3
"""CloudKit JS's sign-in window in headless Chromium, from an app page on another origin that listens as CloudKit JS
does: a `message` listener on `window`, the first object-valued `data`, `data.ckSession` (else `data.errorMessage`),
and, as a careful app would, only from Stratus's origin. The app page asks for a private database's `users/caller`
without a session, opens the `redirectURL` it is answered in a window when its button is clicked, and the user signs
in there (then, a second time, cancels). Environment: STRATUS_URL, STRATUS_CONTAINER, STRATUS_API_TOKEN (one whose
allowed origins list the app's), STRATUS_APP_PORT, STRATUS_USER_EMAIL, STRATUS_USER_PASSWORD, STRATUS_USER_RECORD_NAME,
STRATUS_UNTRUSTED_PORT (an origin no token lists), STRATUS_SCREENSHOTS, CHROMEDRIVER."""
import json, os, sys, time, traceback
import requests
from webdriver import BASE, WebDriver, expect, serve, wait

CONTAINER = os.environ["STRATUS_CONTAINER"]
API_TOKEN = os.environ["STRATUS_API_TOKEN"]
APP = "http://127.0.0.1:%s" % os.environ["STRATUS_APP_PORT"]

APP_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>An app on CloudKit JS</title></head>
<body><button id="sign-in" disabled>Sign in</button>
<script>
var STRATUS = %(stratus)s;
window.heard = [];
window.strangers = 0;
window.addEventListener("message", function (event) {
  if (!event.data || typeof event.data !== "object") return;
  if (event.origin !== STRATUS) { window.strangers += 1; return; }
  window.heard.push(event.data);
});
fetch(STRATUS + "/database/1/" + %(container)s + "/development/private/users/caller?ckAPIToken=" + %(token)s)
  .then(function (r) { return r.json(); })
  .then(function (j) { window.redirectURL = j.redirectURL; document.getElementById("sign-in").disabled = false; });
document.getElementById("sign-in").addEventListener("click", function () {
  window.open(window.redirectURL, "stratus-sign-in", "width=480,height=640");
});
</script></body></html>
""" % {"stratus": json.dumps(BASE), "container": json.dumps(CONTAINER), "token": json.dumps(API_TOKEN)}


def open_window(b, main):
    """Clicks the app's button and switches to the sign-in window it opens."""
    before = set(b.cmd("GET", "/window/handles"))
    b.click("#sign-in")
    deadline = time.time() + 20
    while time.time() < deadline:
        opened = set(b.cmd("GET", "/window/handles")) - before
        if opened:
            b.cmd("POST", "/window", {"handle": opened.pop()})
            return
        time.sleep(0.1)
    raise AssertionError("the sign-in window did not open")


def back_to_app(b, main):
    """The sign-in window closes itself after posting; the app's window is current again."""
    deadline = time.time() + 20
    while time.time() < deadline and len(b.cmd("GET", "/window/handles")) > 1: time.sleep(0.1)
    expect(len(b.cmd("GET", "/window/handles")) == 1, "the sign-in window closed itself")
    b.cmd("POST", "/window", {"handle": main})


def flows(b):
    main = b.cmd("GET", "/window")
    b.cmd("POST", "/url", {"url": APP + "/"})
    redirect = wait(b, "return window.redirectURL", "the app's redirectURL")
    expect(redirect.startswith(BASE + "/auth/1/" + CONTAINER + "/development/signin") and "origin=" in redirect, "redirectURL: %s" % redirect)

    # Signed in: the app hears {ckSession, ckWebAuthToken} from Stratus's origin, and the session works.
    open_window(b, main)
    expect(b.wait_text("Sign in to " + CONTAINER), "the sign-in window shows the form")
    b.shot("20-signin-window")
    b.type("input[name=email]", os.environ["STRATUS_USER_EMAIL"]); b.type("input[name=password]", os.environ["STRATUS_USER_PASSWORD"])
    b.click("form button[type=submit]")
    back_to_app(b, main)
    heard = wait(b, "return window.heard.length ? window.heard : null", "the sign-in message")
    message = heard[0]
    expect(isinstance(message.get("ckSession"), str) and len(message["ckSession"]) > 20, "the message carries ckSession: %r" % message.keys())
    expect(message.get("ckWebAuthToken") == message["ckSession"], "and the same token as ckWebAuthToken")
    expect("errorMessage" not in message, "and no error")
    expect(b.script("return window.strangers") == 0, "nothing came from another origin")
    me = requests.get("%s/database/1/%s/development/private/users/caller" % (BASE, CONTAINER),
                      params={"ckAPIToken": API_TOKEN, "ckWebAuthToken": message["ckSession"]}, headers={"Origin": APP}, timeout=30)
    expect(me.status_code == 200 and me.json().get("userRecordName") == os.environ["STRATUS_USER_RECORD_NAME"], "the session is the user's: %s" % me.text[:300])
    b.shot("21-signed-in-app")

    # Cancelled: the app hears {errorMessage} (CloudKit JS's SIGN_IN_FAILED) and no session.
    b.script("window.heard = []")
    open_window(b, main)
    b.wait_text("Cancel")
    b.click("#cancel-sign-in")
    back_to_app(b, main)
    heard = wait(b, "return window.heard.length ? window.heard : null", "the cancellation message")
    expect(isinstance(heard[0].get("errorMessage"), str) and "cancel" in heard[0]["errorMessage"].lower(), "the app hears why: %r" % heard[0])
    expect("ckSession" not in heard[0] and "ckWebAuthToken" not in heard[0], "and no session")

    # A page on an origin no API token lists is refused the window before anything is asked.
    untrusted = "http://127.0.0.1:%s" % os.environ["STRATUS_UNTRUSTED_PORT"]
    refused = requests.get(redirect.split("?")[0], params={"origin": untrusted}, timeout=30)
    expect(refused.status_code == 403 and "not trusted" in refused.text, "an untrusted opener is refused: %d" % refused.status_code)


def main():
    server = serve(int(os.environ["STRATUS_APP_PORT"]), lambda path: APP_PAGE)
    b = WebDriver()
    try:
        flows(b)
        print("sign-in window: passed")
        return 0
    except Exception:
        traceback.print_exc()
        try: b.shot("signin-failure")
        except Exception: pass
        return 1
    finally:
        b.quit()
        server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
