#!/usr/bin/env python3
"""Passkeys on the sign-in pages in headless Chromium with WebDriver's virtual authenticator (CTAP2, resident keys,
user verification): create an account with a passkey alone, sign out, sign in with it, add a second passkey (on a
second authenticator) on the account page and sign in with that, and then a copy of the first passkey (its private
key on a third authenticator, with the counter it had before its last use) is refused. Stratus serves at STRATUS_URL, http://localhost:… (an IP address is no relying
party ID). Environment: STRATUS_URL, STRATUS_CONTAINER, STRATUS_API_TOKEN (one whose allowed origins list the app's),
STRATUS_APP_PORT, STRATUS_SCREENSHOTS, CHROMEDRIVER. Prints `{"userRecordName"}`, then "passkeys: passed"."""
import json, os, urllib.parse
import requests
from webdriver import BASE, expect, run, serve, wait

CONTAINER = os.environ["STRATUS_CONTAINER"]
API_TOKEN = os.environ["STRATUS_API_TOKEN"]
APP = "http://127.0.0.1:%s" % os.environ["STRATUS_APP_PORT"]
CALLBACK = "?callback=" + urllib.parse.quote(APP + "/done", safe="")
AUTH = "/auth/1/%s/development/" % CONTAINER


def caller(token):
    r = requests.get(BASE + "/database/1/%s/development/private/users/caller" % CONTAINER,
                     params={"ckAPIToken": API_TOKEN, "ckWebAuthToken": token}, timeout=30)
    return r.status_code, r.json()


def landed(b, what):
    """The app's callback, reached: its ckWebAuthToken, or its ckError."""
    url = wait(b, "return location.href.indexOf(%s) === 0 ? location.href : null" % json.dumps(APP + "/done"), what)
    return urllib.parse.parse_qs(urllib.parse.urlparse(url).query)


def authenticator(b):
    return b.cmd("POST", "/webauthn/authenticator", {"protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
                                                     "hasUserVerification": True, "isUserVerified": True})


def steps(b):
    first = authenticator(b)
    b.go(AUTH + "signup" + CALLBACK)
    b.click('[data-passkey="create-account"]')
    token = landed(b, "the session of the new account")["ckWebAuthToken"][0]
    status, me = caller(token)
    expect(status == 200, "the new account is signed in: %r" % me)
    user = me["userRecordName"]
    print(json.dumps({"userRecordName": user}))

    requests.post(BASE + AUTH + "signout", params={"ckWebAuthToken": token}, timeout=30)
    expect(caller(token)[0] == 421, "signed out, the session is over")

    b.go(AUTH + "signin" + CALLBACK)
    b.click('[data-passkey="sign-in"]')
    again = landed(b, "the passkey sign-in")["ckWebAuthToken"][0]
    expect(caller(again)[1].get("userRecordName") == user, "the passkey signs in to its account")

    b.go(AUTH + "account" + CALLBACK)
    b.click('[data-passkey="account"]')
    expect(b.wait_text("Add a passkey"), "the account page offers to add a passkey")
    # The first passkey as it is now (its private key and counter), kept to copy later.
    kept = b.cmd("GET", "/webauthn/authenticator/%s/credentials" % first)
    expect(len(kept) == 1 and kept[0]["signCount"] > 0, "the first authenticator holds the passkey, counting: %r" % kept)
    # The second passkey, on another authenticator (one account has one passkey per authenticator).
    b.cmd("DELETE", "/webauthn/authenticator/%s" % first)
    second = authenticator(b)
    b.click('[data-passkey="add"]')
    expect(b.wait_text("Your passkey was added"), "the passkey was added")
    b.go(AUTH + "signin" + CALLBACK)
    b.click('[data-passkey="sign-in"]')
    other = landed(b, "the second passkey's sign-in")["ckWebAuthToken"][0]
    expect(caller(other)[1].get("userRecordName") == user, "the second passkey signs in to the same account")

    # A copy of the first passkey, on a third authenticator, with the counter it had before its last use.
    b.cmd("DELETE", "/webauthn/authenticator/%s" % second)
    copy = authenticator(b)
    clone = dict(kept[0])
    clone["signCount"] = kept[0]["signCount"] - 1
    b.cmd("POST", "/webauthn/authenticator/%s/credential" % copy, clone)
    b.go(AUTH + "signin" + CALLBACK)
    b.click('[data-passkey="sign-in"]')
    refused = landed(b, "the copy's refusal")
    expect("ckWebAuthToken" not in refused and "counter" in refused.get("ckError", [""])[0], "the copy is refused: %r" % refused)
    b.shot("passkeys-refused-copy")
    print("passkeys: passed")


def main():
    server = serve(int(os.environ["STRATUS_APP_PORT"]), lambda path: "<!doctype html><title>done</title><p>back in the app</p>")
    run("passkeys", steps, server)


if __name__ == "__main__":
    main()
