#!/usr/bin/env python3
"""Sharing end to end, from outside Stratus's code: a real `stratus serve` on port 0; three people sign up
through the container's sign-in pages (an owner, a member and an outsider) and use CloudKit Web Services as a
web app would.

owner creates a zone, records and a share inviting the member by email -> the member resolves and accepts ->
the member reads the hierarchy in its shared database (and nothing else) -> the member (READ_ONLY) is refused
a write -> the owner upgrades the member -> the member writes and the owner sees it through changes/zone ->
the outsider is refused at every endpoint and on the share page -> the owner removes the member -> the member
is refused and the zone leaves the member's shared database.

Configuration: STRATUS_BIN, STRATUS_DATA, STRATUS_CONTAINER, STRATUS_API_TOKEN (a token that allows the
origin http://app.example). Exits non-zero on the first failure.
"""
import json
import os
import subprocess
import sys
import threading
import urllib.parse

import requests

BIN = os.environ["STRATUS_BIN"]
DATA = os.environ["STRATUS_DATA"]
CONTAINER = os.environ["STRATUS_CONTAINER"]
API_TOKEN = os.environ["STRATUS_API_TOKEN"]
CALLBACK = "http://app.example/signed-in"

checks = 0
server = None
base = None


def check(condition, message):
    global checks
    if not condition:
        print("FAIL: " + message, flush=True)
        if server:
            server.kill()
        sys.exit(1)
    checks += 1


def start():
    global server, base
    server = subprocess.Popen([BIN, "serve", "--port", "0", "--data", DATA], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in server.stdout:
        if line.startswith("Stratus is serving "):
            base = line.split()[-1].rstrip("/")
            threading.Thread(target=lambda out=server.stdout: [None for _ in out], daemon=True).start()
            return
    check(False, "the server did not start")


def sign_up(email, first_name):
    """Creates an account on the sign-up page, signs in on the form it ends on, and returns the web auth token the
    sign-in's redirect carries."""
    query = "?callback=%s" % urllib.parse.quote(CALLBACK, safe="")
    form = {"email": email, "password": "a long enough password", "firstName": first_name}
    response = requests.post("%s/auth/1/%s/development/signup%s" % (base, CONTAINER, query), data=form, allow_redirects=False, timeout=30)
    check(response.status_code == 200 and 'id="signed-up"' in response.text,
          "sign-up of %s answered %d: %s" % (email, response.status_code, response.text[:300]))
    response = requests.post("%s/auth/1/%s/development/signin%s" % (base, CONTAINER, query), data=form, allow_redirects=False, timeout=30)
    check(response.status_code in (302, 303), "sign-in of %s answered %d: %s" % (email, response.status_code, response.text[:300]))
    location = response.headers["Location"]
    check(location.startswith(CALLBACK), "the token goes to the app's callback: " + location)
    return urllib.parse.parse_qs(urllib.parse.urlparse(location).query)["ckWebAuthToken"][0]


def raw(database, operation, body, user):
    url = "%s/database/1/%s/development/%s/%s?ckAPIToken=%s&ckWebAuthToken=%s" % (
        base, CONTAINER, database, operation, urllib.parse.quote(API_TOKEN, safe=""), urllib.parse.quote(user, safe=""))
    if body is None:
        return requests.get(url, timeout=30)
    return requests.post(url, data=json.dumps(body), timeout=30)


def call(database, operation, body, user):
    response = raw(database, operation, body, user)
    check(response.status_code == 200, "%s answered %d: %s" % (operation, response.status_code, response.text[:300]))
    return response.json()


def refused(response, codes, what):
    """An error envelope or a per-item error, with one of `codes`."""
    text = response.text
    try:
        body = response.json()
    except ValueError:
        check(False, "%s: not JSON: %s" % (what, text[:200]))
    items = body.get("records") or body.get("results") or body.get("zones") or [body]
    code = items[0].get("serverErrorCode") if items else None
    check(code in codes, "%s: expected %s, got %d %s" % (what, codes, response.status_code, text[:300]))


def main():
    start()
    owner = sign_up("olivia@example.com", "Olivia")
    member = sign_up("max@example.com", "Max")
    outsider = sign_up("eve@example.com", "Eve")
    owner_id = call("public", "users/caller", None, owner)["userRecordName"]
    member_id = call("public", "users/caller", None, member)["userRecordName"]
    zone = {"zoneName": "Trip"}
    shared_zone = {"zoneName": "Trip", "ownerRecordName": owner_id}

    call("private", "zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": zone}}]}, owner)
    made = call("private", "records/modify", {"zoneID": zone, "operations": [
        {"operationType": "create", "record": {"recordName": "plan", "recordType": "Plan", "fields": {"title": {"value": "Lisbon"}}}},
        {"operationType": "create", "record": {"recordName": "day1", "recordType": "Day", "fields": {"title": {"value": "Alfama"}}, "parent": {"recordName": "plan"}}},
        {"operationType": "create", "record": {"recordName": "secret-diary", "recordType": "Day", "fields": {"title": {"value": "private"}}}},
        {"operationType": "create", "record": {"recordName": "trip-share", "recordType": "cloudkit.share", "forRecord": {"recordName": "plan"},
                                               "participants": [{"userIdentity": {"lookupInfo": {"emailAddress": "max@example.com"}}, "permission": "READ_ONLY"}]}},
    ]}, owner)
    check(all("serverErrorCode" not in r for r in made["records"]), "the owner's records and share were saved: %s" % made)
    share = made["records"][3]
    guid = share["shortGUID"]
    check(made["records"][1].get("parent", {}).get("recordName") == "plan", "day1 hangs under plan")

    # The member resolves the URL and accepts.
    resolved = call("public", "records/resolve", {"shortGUIDs": [{"value": guid, "shouldFetchRootRecord": True}]}, member)["results"][0]
    check(resolved.get("participantStatus") == "INVITED" and resolved["ownerIdentity"]["userRecordName"] == owner_id
          and resolved["rootRecord"]["recordName"] == "plan", "the member resolves the invitation: %s" % resolved)
    accepted = call("public", "records/accept", {"shortGUIDs": [{"value": guid}]}, member)["results"][0]
    check(accepted.get("participantStatus") == "ACCEPTED", "the member accepted: %s" % accepted)

    # The member reads the hierarchy, and only it.
    zones = call("shared", "zones/list", None, member)["zones"]
    check([z["zoneID"] for z in zones] == [shared_zone], "the shared zone is listed under its owner: %s" % zones)
    days = call("shared", "records/query", {"zoneID": shared_zone, "query": {"recordType": "Day"}}, member)["records"]
    check([r["recordName"] for r in days] == ["day1"], "only the shared day is visible: %s" % days)
    looked = call("shared", "records/lookup", {"zoneID": shared_zone, "records": [{"recordName": "secret-diary"}]}, member)["records"][0]
    check(looked.get("serverErrorCode") == "NOT_FOUND" and "private" not in json.dumps(looked), "the diary stays invisible: %s" % looked)

    # READ_ONLY: a write is refused.
    write = raw("shared", "records/modify", {"zoneID": shared_zone, "operations": [
        {"operationType": "create", "record": {"recordName": "day2", "recordType": "Day", "fields": {"title": {"value": "Belem"}}, "parent": {"recordName": "plan"}}}]}, member)
    refused(write, ["ACCESS_DENIED"], "a read-only member's write")

    # The owner upgrades the member; the member writes; the owner sees it in its change feed.
    current = call("public", "records/resolve", {"shortGUIDs": [{"value": guid}]}, owner)["results"][0]["share"]
    call("private", "records/modify", {"zoneID": zone, "operations": [{"operationType": "update", "record": {
        "recordName": "trip-share", "recordType": "cloudkit.share", "recordChangeTag": current["recordChangeTag"],
        "participants": [{"userIdentity": {"lookupInfo": {"emailAddress": "max@example.com"}}, "permission": "READ_WRITE"}]}}]}, owner)
    before = call("private", "changes/zone", {"zones": [{"zoneID": zone}]}, owner)["zones"][0]["syncToken"]
    wrote = call("shared", "records/modify", {"zoneID": shared_zone, "operations": [
        {"operationType": "create", "record": {"recordName": "day2", "recordType": "Day", "fields": {"title": {"value": "Belem"}}, "parent": {"recordName": "plan"}}}]}, member)
    check("serverErrorCode" not in wrote["records"][0], "the upgraded member writes: %s" % wrote)
    after = call("private", "changes/zone", {"zones": [{"zoneID": zone, "syncToken": before}]}, owner)["zones"][0]["records"]
    check([r["recordName"] for r in after] == ["day2"] and after[0]["created"]["userRecordName"] == member_id,
          "the owner sees the member's record, stamped with the member: %s" % after)

    # The outsider is refused everywhere.
    refused(raw("public", "records/resolve", {"shortGUIDs": [{"value": guid}]}, outsider), ["ACCESS_DENIED"], "the outsider's resolve")
    refused(raw("public", "records/accept", {"shortGUIDs": [{"value": guid}]}, outsider), ["ACCESS_DENIED"], "the outsider's accept")
    refused(raw("shared", "records/query", {"zoneID": shared_zone, "query": {"recordType": "Day"}}, outsider), ["ZONE_NOT_FOUND"], "the outsider's query")
    refused(raw("shared", "records/lookup", {"zoneID": shared_zone, "records": [{"recordName": "day1"}]}, outsider), ["ZONE_NOT_FOUND"], "the outsider's lookup")
    refused(raw("shared", "changes/zone", {"zones": [{"zoneID": shared_zone}]}, outsider), ["ZONE_NOT_FOUND"], "the outsider's zone changes")
    refused(raw("shared", "records/modify", {"zoneID": shared_zone, "operations": [{"operationType": "forceDelete", "record": {"recordName": "day1"}}]}, outsider),
            ["ZONE_NOT_FOUND"], "the outsider's delete")
    check(call("shared", "zones/list", None, outsider)["zones"] == [], "nothing is shared with the outsider")
    page = requests.get("%s/share/%s" % (base, guid), timeout=30)
    check(page.status_code == 200 and "Olivia" not in page.text and "Plan" not in page.text, "the share page shows an outsider nothing before sign-in")
    denied = requests.post("%s/share/%s" % (base, guid), data={"email": "eve@example.com", "password": "a long enough password"}, timeout=30)
    check(denied.status_code == 404 and "Not shared with you" in denied.text and "Lisbon" not in denied.text, "the share page refuses the outsider")

    # The owner removes the member: refused at once, and the zone leaves the member's shared database.
    token = call("shared", "changes/database", {}, member)["syncToken"]
    current = call("public", "records/resolve", {"shortGUIDs": [{"value": guid}]}, owner)["results"][0]["share"]
    call("private", "records/modify", {"zoneID": zone, "operations": [{"operationType": "update", "record": {
        "recordName": "trip-share", "recordType": "cloudkit.share", "recordChangeTag": current["recordChangeTag"], "participants": []}}]}, owner)
    refused(raw("shared", "records/query", {"zoneID": shared_zone, "query": {"recordType": "Day"}}, member), ["ZONE_NOT_FOUND"], "the removed member's query")
    check(call("shared", "zones/list", None, member)["zones"] == [], "the zone left the member's shared database")
    changes = call("shared", "changes/database", {"syncToken": token}, member)
    check(any(z.get("deleted") and z["zoneID"]["zoneName"] == "Trip" for z in changes["zones"]), "changes/database reports the zone gone: %s" % changes)

    server.terminate()
    server.wait(timeout=30)
    print("sharing flows: %d checks passed, 0 failed" % checks, flush=True)


if __name__ == "__main__":
    main()
