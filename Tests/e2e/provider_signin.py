#!/usr/bin/env python3
"""Signing in with an OpenID provider in headless Chromium, through the sign-in page's button, against the stand-in
provider on another site (localhost, while Stratus is on 127.0.0.1): first by the callback URL with the provider
answering by redirect, then from CloudKit JS's sign-in window with the provider answering by a cross-site form POST
(as Apple does), which carries no SameSite=Lax cookie and is sent on once by the page. Each session is checked with
users/caller. Environment: STRATUS_URL, STRATUS_CONTAINER, STRATUS_API_TOKEN (one whose allowed origins list the
app's), STRATUS_APP_PORT, STRATUS_REDIRECT_PROVIDER, STRATUS_POST_PROVIDER, STRATUS_SCREENSHOTS, CHROMEDRIVER.
Prints one JSON line per sign-in (`{"way", "userRecordName"}`), then "provider sign-in: passed"."""
import json, os, time, urllib.parse
import requests
from webdriver import BASE, expect, run, serve, wait

CONTAINER = os.environ["STRATUS_CONTAINER"]
API_TOKEN = os.environ["STRATUS_API_TOKEN"]
APP = "http://127.0.0.1:%s" % os.environ["STRATUS_APP_PORT"]

APP_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>An app on CloudKit JS</title></head>
<body><button id="sign-in">Sign in</button>
<script>
var STRATUS = %(stratus)s;
window.heard = [];
window.addEventListener("message", function (event) {
  if (event.origin === STRATUS && event.data && typeof event.data === "object") window.heard.push(event.data);
});
document.getElementById("sign-in").addEventListener("click", function () {
  window.open(STRATUS + "/auth/1/" + %(container)s + "/development/signin?origin=" + encodeURIComponent(location.origin),
              "stratus-sign-in", "width=480,height=640");
});
</script></body></html>
""" % {"stratus": json.dumps(BASE), "container": json.dumps(CONTAINER)}


def caller(token):
    r = requests.get(BASE + "/database/1/%s/development/private/users/caller" % CONTAINER,
                     params={"ckAPIToken": API_TOKEN, "ckWebAuthToken": token}, timeout=30)
    expect(r.status_code == 200, "users/caller answers the session: %s" % r.text)
    return r.json()["userRecordName"]


def steps(b):
    # 1. The callback URL, the provider answering by redirect.
    callback = urllib.parse.quote(APP + "/done", safe="")
    b.go("/auth/1/%s/development/signin?callback=%s" % (CONTAINER, callback))
    b.click('a.provider[href*="/provider/%s"]' % os.environ["STRATUS_REDIRECT_PROVIDER"])
    url = wait(b, "return location.href.indexOf('ckWebAuthToken=') > 0 ? location.href : null", "the callback with a session")
    expect(url.startswith(APP + "/done?"), "the app's callback is reached: " + url)
    token = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)["ckWebAuthToken"][0]
    print(json.dumps({"way": "redirect", "userRecordName": caller(token)}))

    # 2. CloudKit JS's sign-in window, the provider answering by a cross-site form POST.
    b.cmd("POST", "/url", {"url": APP + "/app"})
    main_window = b.cmd("GET", "/window")
    before = set(b.cmd("GET", "/window/handles"))
    b.click("#sign-in")
    deadline = time.time() + 20
    while time.time() < deadline and not (set(b.cmd("GET", "/window/handles")) - before): time.sleep(0.1)
    b.cmd("POST", "/window", {"handle": (set(b.cmd("GET", "/window/handles")) - before).pop()})
    b.click('a.provider[href*="/provider/%s"]' % os.environ["STRATUS_POST_PROVIDER"])
    deadline = time.time() + 20
    while time.time() < deadline and len(b.cmd("GET", "/window/handles")) > 1: time.sleep(0.1)
    expect(len(b.cmd("GET", "/window/handles")) == 1, "the sign-in window closed itself")
    b.cmd("POST", "/window", {"handle": main_window})
    heard = wait(b, "return window.heard.length ? window.heard : null", "the session posted to the app")
    expect("ckSession" in heard[0] and heard[0]["ckSession"] == heard[0]["ckWebAuthToken"], "CloudKit JS hears ckSession: %r" % heard)
    print(json.dumps({"way": "form_post", "userRecordName": caller(heard[0]["ckSession"])}))
    print("provider sign-in: passed")


def main():
    done = "<!doctype html><title>done</title><p id=done>back in the app</p>"
    server = serve(int(os.environ["STRATUS_APP_PORT"]), lambda path: APP_PAGE if path.startswith("/app") else done)
    run("provider-signin", steps, server)


if __name__ == "__main__":
    main()
