#!/usr/bin/env python3
"""An administrator's second factors in headless Chromium, as one enrols and uses them on a server that requires one
(a new administrator is sent to enrol before any page): an authenticator app (its
secret read off the page, its codes computed here as the app would, RFC 6238), a reused code refused, a recovery
code used once; then a passkey (WebDriver's virtual authenticator: CTAP2, resident key, user verification) added,
used as the second step after the password, and as the whole sign-in. Stratus serves at STRATUS_URL
(http://localhost:…, the relying party); the administrator STRATUS_ADMIN exists with the password STRATUS_PASSWORD.
Environment: STRATUS_URL, STRATUS_ADMIN, STRATUS_PASSWORD, STRATUS_SCREENSHOTS, CHROMEDRIVER. Prints
"admin second factor: passed"."""
import base64, hashlib, hmac, os, re, struct, time
from webdriver import expect, run, wait

ADMIN, PASSWORD = os.environ["STRATUS_ADMIN"], os.environ["STRATUS_PASSWORD"]


def totp_at(secret, step):
    key = base64.b32decode(secret.replace(" ", "") + "=" * (-len(secret.replace(" ", "")) % 8))
    mac = hmac.new(key, struct.pack(">Q", step), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    return "%06d" % ((struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7FFFFFFF) % 1000000)


LAST = [None]


def totp(secret):
    """A code the server takes now: of a step after the last one it took, and no more than one ahead of now (it
    waits for the clock when it must), as a user whose app shows a new code would."""
    while True:
        now = int(time.time() // 30)
        step = now if LAST[0] is None else max(LAST[0] + 1, now)
        if step <= now + 1: break
        time.sleep(1)
    LAST[0] = step
    return totp_at(secret, step)


def sign_in(b):
    b.go("/console/login")
    b.type("input[name=email]", ADMIN)
    b.type("input[name=password]", PASSWORD)
    b.click("form.card button[type=submit]")


def sign_out(b):
    b.click("form.signout button")
    wait(b, "return location.pathname === '/console/login' ? true : null", "signed out")


def at(b, path, what):
    wait(b, "return location.pathname === %r ? true : null" % path, what)


def steps(b):
    # The server requires a second factor (--require-two-factor): a new administrator is sent to enrol one first.
    sign_in(b)
    at(b, "/console/two-factor", "sent to enrol")
    expect(b.wait_text("requires every administrator to have a second factor"), "the page says why")
    b.go("/console/")
    at(b, "/console/two-factor", "no page before enrolling")
    b.click("form.card button[type=submit]")
    expect(b.wait_text("Scan the code"), "the enrolment page")
    b.shot("admin-2fa-enrol")
    secret = re.search(r"Secret: ([A-Z2-7 ]+)", b.text()).group(1).strip()
    b.type("input[name=code]", totp(secret))
    b.click("form.card button[type=submit]")
    expect(b.wait_text("Recovery codes"), "the recovery codes, once")
    codes = re.findall(r"\b[a-z2-9]{5}-[a-z2-9]{5}\b", b.text())
    expect(len(codes) == 10, "ten recovery codes: %r" % codes)
    b.click("main a")
    sign_out(b)

    # The second step: a code of now; the same code again refused; a recovery code once.
    sign_in(b)
    at(b, "/console/two-factor", "the second step")
    code = totp(secret)
    b.type("input[name=code]", code)
    b.click("form.card button[type=submit]")
    at(b, "/console/", "past the second step")
    sign_out(b)
    sign_in(b)
    at(b, "/console/two-factor", "the second step again")
    b.type("input[name=code]", code)
    b.click("form.card button[type=submit]")
    expect(b.wait_text("not right, or was used already"), "a code is used once")
    b.type("input[name=code]", codes[0])
    b.click("form.card button[type=submit]")
    at(b, "/console/", "a recovery code signs in")
    sign_out(b)
    sign_in(b)
    b.type("input[name=code]", codes[0])
    b.click("form.card button[type=submit]")
    expect(b.wait_text("not right, or was used already"), "a recovery code is used once")
    b.type("input[name=code]", totp(secret))
    b.click("form.card button[type=submit]")
    at(b, "/console/", "the next step's code signs in")

    # A passkey: added, then the second step after the password, then the whole sign-in.
    b.cmd("POST", "/webauthn/authenticator", {"protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
                                              "hasUserVerification": True, "isUserVerified": True})
    b.go("/console/two-factor")
    b.click('[data-passkey="add"]')
    wait(b, "return location.pathname === '/console/two-factor' && document.body.innerText.indexOf('1 passkeys') >= 0 ? true : null",
         "the passkey was added")
    b.shot("admin-2fa-passkey-added")
    sign_out(b)
    sign_in(b)
    at(b, "/console/two-factor", "the second step, with a passkey offered")
    b.click('[data-passkey="second-step"]')
    at(b, "/console/", "the passkey passed the second step")
    sign_out(b)
    b.go("/console/login")
    b.click('[data-passkey="sign-in"]')
    at(b, "/console/", "the passkey alone signed in")
    b.shot("admin-2fa-passkey-sign-in")
    print("admin second factor: passed")


if __name__ == "__main__":
    run("admin-second-factor", steps)
