#!/usr/bin/env python3
"""The console through a TLS proxy in headless Chromium: first admin, edit a record, and on every page check that
nothing is loaded or posted over plain http (no mixed content) and that the session cookie is Secure.
Environment as browser_flows.py (STRATUS_URL is the https public URL), plus STRATUS_RECORD_PATH (a record page)."""
import os, sys, time, traceback
from webdriver import WebDriver, expect, BASE

SETUP = os.environ["STRATUS_SETUP"]

RECORD = os.environ["STRATUS_RECORD_PATH"]

MIXED = """
const bad = [];
for (const e of performance.getEntriesByType('resource')) if (!e.name.startsWith('https:')) bad.push('loaded ' + e.name);
for (const f of document.forms) if (!f.action.startsWith('https:')) bad.push('form posts to ' + f.action);
for (const a of document.querySelectorAll('a[href]')) if (a.href.startsWith('http:')) bad.push('link to ' + a.href);
if (location.protocol !== 'https:') bad.push('page is ' + location.href);
return bad;
"""


def no_mixed_content(b, where):
    bad = b.cmd("POST", "/execute/sync", {"script": MIXED, "args": []})
    expect(not bad, f"{where}: {bad}")


def flows(b):
    b.go(SETUP); no_mixed_content(b, "setup")
    b.type("input[name=email]", "admin@example.com"); b.type("input[name=password]", "a long admin password")
    b.click("button[type=submit]")
    expect(b.wait_text("Create a container"), "setup ends in the console")
    no_mixed_content(b, "containers")
    cookies = b.cmd("GET", "/cookie")
    session = [c for c in cookies if c["name"] == "stratus_session"]
    expect(session and session[0].get("secure") is True and session[0].get("httpOnly") is True, f"the session cookie is Secure and HttpOnly: {cookies}")
    b.go(RECORD); no_mixed_content(b, "record page")
    b.type("textarea[name='v:title']", "Edited through TLS"); b.click("form.record-form > div > button")
    expect(b.wait_text("Saved.") and "Edited through TLS" in b.text(), "edited through https")
    expect(b.cmd("GET", "/url").startswith("https://"), "redirects stay on https")
    no_mixed_content(b, "after saving")
    b.shot("https-edited")


def main():
    b = WebDriver()
    try:
        flows(b)
        print("https flows: passed")
        return 0
    except Exception:
        traceback.print_exc()
        try: b.shot("https-failure")
        except Exception: pass
        return 1
    finally:
        b.quit()


if __name__ == "__main__":
    sys.exit(main())
