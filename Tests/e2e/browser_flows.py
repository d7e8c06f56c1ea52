#!/usr/bin/env python3
"""Walks the console's main flows in headless Chromium, driven over W3C WebDriver (chromedriver), and saves a
screenshot of each step. Environment: STRATUS_URL (server root), STRATUS_SETUP (the one-time setup path),
STRATUS_SCREENSHOTS (directory), CHROMEDRIVER (path, default /usr/bin/chromedriver); STRATUS_SHARE_PATH,
STRATUS_SHARE_EMAIL and STRATUS_SHARE_PASSWORD for the share-acceptance flow."""
import os, sys, time, traceback
from webdriver import WebDriver, expect

SETUP = os.environ["STRATUS_SETUP"]
CONTAINER = "iCloud.com.example.Browser"


def flows(b):
    dev = f"/console/{CONTAINER}/development"
    # First admin, through the one-time setup link.
    b.go(SETUP); b.shot("01-setup")
    b.type("input[name=email]", "admin@example.com"); b.type("input[name=password]", "a long admin password")
    b.click("button[type=submit]")
    expect(b.wait_text("Create a container"), "setup ends in the console")
    # Sign out and in again.
    b.click("header form.signout button"); expect(b.wait_text("Sign in") and b.path() == "/console/login", "signed out")
    b.type("input[name=email]", "admin@example.com"); b.type("input[name=password]", "a long admin password")
    b.click("main form button"); b.shot("02-containers")
    # Create a container.
    b.type("input[name=id]", CONTAINER); b.click("form.card button")
    expect(b.wait_text(CONTAINER, "table"), "the new container is listed")
    # Schema: a type with fields.
    b.go(dev + "/schema"); b.type("input[name=name]", "Task"); b.click("form.row button")
    expect(b.wait_text("Add a field"), "record type created")
    for name, kind in [("title", "STRING"), ("size", "INT64"), ("labels", "STRING_LIST")]:
        b.type("input[name=name]", name); b.select("select[name=type]", kind)
        for box in b.finds("form.row input[name=index]"): b.cmd("POST", f"/element/{box}/click", {})
        b.click("form.row button[type=submit]")
        expect(b.wait_text("Added " + name), f"field {name} added")
    b.shot("03-schema")
    expect("labels" in b.text("table"), "fields are listed")
    # Records: create a few through the form, the list field with two items added by the page's script.
    for i in range(3):
        b.go(f"{dev}/public/new-record?type=Task")
        b.type("input[name=recordName]", f"task-{i}"); b.type("textarea[name='v:title']", f"Task number {i}")
        b.type("input[name='v:size']", str(i * 10))
        b.type("fieldset[data-field=labels] textarea", "alpha")
        b.click("fieldset[data-field=labels] > button")
        boxes = b.finds("fieldset[data-field=labels] textarea")
        b.cmd("POST", f"/element/{boxes[-1]}/value", {"text": f"label{i}"})
        b.click("form.record-form > div > button")
        expect(b.wait_text("Created."), f"task-{i} created")
    b.shot("04-record")
    # Query: size >= 10, sorted descending.
    b.go(f"{dev}/public/records?type=Task")
    b.select("select[name=f]", "size"); b.select("select[name=op]", "GREATER_THAN_OR_EQUALS"); b.type("input[name=v]", "10")
    b.select("select[name=s]", "size"); b.select("select[name=order]", "desc")
    b.click("form.query button[type=submit]")
    for _ in range(100):
        if "filter=size" in b.path(): break
        time.sleep(0.1)
    expect("filter=size" in b.path(), "the query lives in the URL")
    rows = b.text("table.records tbody")
    expect(rows.index("task-2") < rows.index("task-1") and "task-0" not in rows, f"query results: {rows}")
    b.shot("05-query")
    # Edit a record.
    b.click("table.records tbody a")
    b.type("textarea[name='v:title']", "Renamed by the browser"); b.click("form.record-form > div > button")
    expect(b.wait_text("Saved.") and "Renamed by the browser" in b.text("dl.fields:nth-of-type(2)"), "edited")
    b.shot("06-edited")
    # Change a role: World may no longer read Task.
    b.go(dev + "/roles")
    box = b.find("input[name='grant:Task:_world'][value=READ]")
    expect(b.cmd("GET", f"/element/{box}/selected"), "World reads by default")
    b.cmd("POST", f"/element/{box}/click", {}); b.click("main form button[type=submit]")
    expect(b.wait_text("Saved roles for Task"), "roles saved")
    b.shot("07-roles")
    # Deploy.
    b.go(f"/console/{CONTAINER}/deploy"); expect("add record type Task" in b.text(), "deploy plan")
    b.shot("08-deploy-plan")
    b.click("form.card button"); expect(b.wait_text("Deployed"), "deployed")
    b.go(f"/console/{CONTAINER}/production/schema"); expect("Task" in b.text("table"), "Task in Production")
    expect("PRODUCTION" in b.text("header").upper(), "Production is labelled")
    b.shot("09-production")
    # Reset Development, with the typed confirmation.
    b.go(dev + "/reset"); b.type("input[name=confirm]", CONTAINER); b.click("form.card button")
    b.accept_alert()
    expect(b.wait_text("Development was reset"), "reset")
    b.go(f"{dev}/public/records?type=Task"); expect("0 records" in b.text(), "no records after reset")
    b.shot("10-reset")
    # A share's URL, opened by the person it was shared with: sign in on the page, accept, see where it went.
    share = os.environ.get("STRATUS_SHARE_PATH")
    if share:
        b.go(share); expect(b.wait_text("Sign in and accept"), "the share page asks to sign in")
        b.shot("11-share-page")
        b.type("input[name=email]", os.environ["STRATUS_SHARE_EMAIL"]); b.type("input[name=password]", os.environ["STRATUS_SHARE_PASSWORD"])
        b.click("#accept")
        expect(b.wait_text("You joined"), "the share was accepted")
        expect("Trip" in b.text("#accepted") and "shared database" in b.text(), "the page says what was joined and where it is")
        b.shot("12-share-accepted")


def main():
    b = WebDriver()
    try:
        flows(b)
        print("browser flows: passed")
        return 0
    except Exception:
        traceback.print_exc()
        try: b.shot("failure")
        except Exception: pass
        return 1
    finally:
        b.quit()


if __name__ == "__main__":
    sys.exit(main())
