#!/usr/bin/env python3
"""Notifications end to end, from outside Stratus's code: a real `stratus serve` on port 0, driven the way
CloudKit web clients drive CloudKit.

1. The web courier: Alice asks tokens/create for a courier URL and long-polls it in a loop (an empty body is a
   keep-alive); Bob creates a public record her query subscription matches; the notification reaches her
   within 2 s with CloudKit's `ck` fields.
2. The sync loop: a zone and a database subscription notify; the client then runs changes/database and
   changes/zone with its sync tokens and finds the change.
3. Server-Sent Events: a stream read, dropped and resumed with Last-Event-ID loses and repeats nothing.
4. Webhooks: a receiver that answers 500, 500, then 200 gets the delivery, with a valid signature.
5. kill -9 right after a write; after a restart the pending notification is still delivered.

Configuration: STRATUS_BIN, STRATUS_DATA, STRATUS_CONTAINER, STRATUS_API_TOKEN, STRATUS_ALICE, STRATUS_BOB
(web auth tokens), STRATUS_ALICE_ID (Alice's user record name). Exits non-zero on the first failure.
"""
import hashlib
import hmac
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.parse

import requests

BIN = os.environ["STRATUS_BIN"]
DATA = os.environ["STRATUS_DATA"]
CONTAINER = os.environ["STRATUS_CONTAINER"]
API_TOKEN = os.environ["STRATUS_API_TOKEN"]
ALICE = os.environ["STRATUS_ALICE"]
BOB = os.environ["STRATUS_BOB"]
ALICE_ID = os.environ["STRATUS_ALICE_ID"]

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
    """Starts `stratus serve` on a free port and returns its base URL."""
    global server, base
    server = subprocess.Popen([BIN, "serve", "--port", "0", "--data", DATA], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in server.stdout:
        if line.startswith("Stratus is serving "):
            base = line.split()[-1].rstrip("/")
            threading.Thread(target=lambda out=server.stdout: [None for _ in out], daemon=True).start()
            return base
    check(False, "the server did not start")


def auth(user):
    return "ckAPIToken=%s&ckWebAuthToken=%s" % (urllib.parse.quote(API_TOKEN, safe=""), urllib.parse.quote(user, safe=""))


def call(database, operation, body, user):
    url = "%s/database/1/%s/development/%s/%s?%s" % (base, CONTAINER, database, operation, auth(user))
    response = requests.post(url, data=json.dumps(body), timeout=120)
    check(response.status_code == 200, "%s answered %d: %s" % (operation, response.status_code, response.text[:300]))
    return response.json()


def courier_url():
    url = "%s/device/1/%s/development/tokens/create?%s" % (base, CONTAINER, auth(ALICE))
    response = requests.post(url, data=json.dumps({"apnsEnvironment": "DEVELOPMENT"}), timeout=120)
    check(response.status_code == 200, "tokens/create answered %d: %s" % (response.status_code, response.text[:300]))
    return response.json()["webcourierURL"]


class Courier:
    """Polls a web courier URL in a loop as CloudKit JS does, collecting what arrives (with the time)."""

    def __init__(self, url):
        self.url, self.received, self.stop = url, [], False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop:
            try:
                response = requests.get(self.url, timeout=40)
            except requests.RequestException:
                time.sleep(0.1)
                continue
            if response.status_code == 200 and response.content:
                self.received.append((time.monotonic(), response.json()))

    def wait(self, count, seconds):
        deadline = time.monotonic() + seconds
        while len(self.received) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return [n for _, n in self.received]


def create(record_name, record_type, fields, database="public", zone=None, user=BOB):
    body = {"operations": [{"operationType": "create", "record": {"recordName": record_name, "recordType": record_type, "fields": fields}}]}
    if zone:
        body["zoneID"] = {"zoneName": zone}
    result = call(database, "records/modify", body, user)
    check("serverErrorCode" not in result["records"][0], "the write was refused: %s" % result)
    return time.monotonic()


start()

# 1. The courier long-poll: Alice hears Bob's matching public record within 2 s, with CloudKit's ck fields.
subscription = {"subscriptionID": "big-orders", "subscriptionType": "query", "firesOn": ["create", "update", "delete"],
                "query": {"recordType": "Order", "filterBy": [{"comparator": "GREATER_THAN", "fieldName": "total", "fieldValue": {"value": 100}}]},
                "notificationInfo": {"alertBody": "A big order", "shouldSendContentAvailable": True, "desiredKeys": ["total"]}}
result = call("public", "subscriptions/modify", {"operations": [{"operationType": "create", "subscription": subscription}]}, ALICE)
check("serverErrorCode" not in result["subscriptions"][0], "the query subscription was refused: %s" % result)
courier = Courier(courier_url())
time.sleep(0.5)
create("small", "Order", {"total": {"value": 5}})
sent = create("big", "Order", {"total": {"value": 500}})
got = courier.wait(1, 5)
check(len(got) == 1, "one notification for the one matching record, got %s" % got)
arrived = courier.received[0][0]
check(arrived - sent < 2.0, "the notification arrived %.2f s after the write (at most 2 s)" % (arrived - sent))
ck = got[0]["ck"]
check(ck["cid"] == CONTAINER and len(ck["nid"]) == 36 and ck["ckuserid"] == ALICE_ID, "ck names the container, the notification and the user: %s" % ck)
qry = ck["qry"]
check(qry["sid"] == "big-orders" and qry["rid"] == "big" and qry["fo"] == 1 and qry["dbs"] == 1 and qry["zid"] == "_defaultZone",
      "ck.qry says which subscription, record, zone, database and why: %s" % qry)
check(qry["af"] == {"total": 500}, "ck.qry.af carries the desired keys: %s" % qry)
check(got[0]["aps"].get("alert", {}).get("body") == "A big order" and got[0]["aps"].get("content-available") == 1, "aps: %s" % got[0]["aps"])

# 2. The sync loop: zone and database subscriptions notify; changes/database then changes/zone find the change.
call("private", "zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Work"}}}]}, ALICE)
database_token = call("private", "changes/database", {}, ALICE)["syncToken"]
zone_token = call("private", "changes/zone", {"zones": [{"zoneID": {"zoneName": "Work"}}]}, ALICE)["zones"][0]["syncToken"]
for sub in ({"subscriptionID": "work", "subscriptionType": "zone", "zoneID": {"zoneName": "Work"}},
            {"subscriptionID": "everything", "subscriptionType": "database"}):
    result = call("private", "subscriptions/modify", {"operations": [{"operationType": "create", "subscription": sub}]}, ALICE)
    check("serverErrorCode" not in result["subscriptions"][0], "subscription refused: %s" % result)
create("todo-1", "Task", {"title": {"value": "Write the report"}}, database="private", zone="Work", user=ALICE)
got = courier.wait(3, 5)[1:]
kinds = sorted(k for n in got for k in ("fet", "met") if k in n["ck"])
check(kinds == ["fet", "met"], "a zone and a database notification, got %s" % got)
fet = next(n["ck"]["fet"] for n in got if "fet" in n["ck"])
check(fet["zid"] == "Work" and fet["dbs"] == 2 and fet["zoid"] == ALICE_ID, "ck.fet names the zone: %s" % fet)
changed = call("private", "changes/database", {"syncToken": database_token}, ALICE)
check([z["zoneID"]["zoneName"] for z in changed["zones"]] == ["Work"], "changes/database lists the changed zone: %s" % changed)
records = call("private", "changes/zone", {"zones": [{"zoneID": {"zoneName": "Work"}, "syncToken": zone_token}]}, ALICE)["zones"][0]["records"]
check([r["recordName"] for r in records] == ["todo-1"], "changes/zone returns the new record: %s" % records)
courier.stop = True

# 3. SSE: read two events, drop the connection, two more writes, resume with Last-Event-ID: exactly the rest.
stream_url = "%s/database/1/%s/development/notifications/stream?%s" % (base, CONTAINER, auth(ALICE))


def events(response, count, seconds=10):
    out, current, deadline = [], {}, time.monotonic() + seconds
    for line in response.iter_lines(chunk_size=1, decode_unicode=True):
        if line.startswith("id: "):
            current["id"] = line[4:]
        elif line.startswith("data: "):
            current["data"] = json.loads(line[6:])
        elif line == "" and "id" in current:
            out.append(current)
            current = {}
            if len(out) == count:
                break
        if time.monotonic() > deadline:
            break
    return out


stream = requests.get(stream_url, stream=True, timeout=30)
check(stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream"), "the stream opens")
time.sleep(0.3)
create("o-1", "Order", {"total": {"value": 101}})
create("o-2", "Order", {"total": {"value": 102}})
first = events(stream, 2)
check([e["data"]["ck"]["qry"]["rid"] for e in first] == ["o-1", "o-2"], "the stream delivers both: %s" % first)
stream.close()
create("o-3", "Order", {"total": {"value": 103}})
create("o-4", "Order", {"total": {"value": 104}})
resumed = requests.get(stream_url, stream=True, timeout=30, headers={"Last-Event-ID": first[-1]["id"]})
rest = events(resumed, 2)
check([e["data"]["ck"]["qry"]["rid"] for e in rest] == ["o-3", "o-4"], "resuming replays exactly what was missed: %s" % rest)
check(all(e["id"] == e["data"]["ck"]["nid"] for e in first + rest), "id: is the notification's nid")
resumed.close()

# 4. A webhook receiver answering 500, 500, then 200 gets the delivery, signed.
attempts, deliveries = [], []


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        attempts.append(body)
        status = 500 if len(attempts) <= 2 else 200
        if status == 200:
            deliveries.append((body, self.headers["X-Stratus-Signature"], self.headers["X-Stratus-Delivery"]))
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=receiver.serve_forever, daemon=True).start()
added = subprocess.run([BIN, "webhook", "add", "--data", DATA, "--container", CONTAINER, "--environment", "development",
                        "--url", "http://127.0.0.1:%d/orders" % receiver.server_address[1], "--record-type", "Order"],
                       capture_output=True, text=True, timeout=60)
check(added.returncode == 0, "stratus webhook add failed: %s" % added.stderr)
secret = added.stdout.strip().splitlines()[-1]
check(len(secret) == 64, "the signing secret is printed once: %r" % added.stdout)
time.sleep(1.5)  # the server notices a webhook added beside it within a second
create("hooked", "Order", {"total": {"value": 7}})
deadline = time.monotonic() + 20
while not deliveries and time.monotonic() < deadline:
    time.sleep(0.05)
check(len(deliveries) == 1 and len(attempts) == 3, "delivered on the third attempt: %d attempts" % len(attempts))
body, signature, delivery_id = deliveries[0]
expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
check(hmac.compare_digest(signature, expected), "X-Stratus-Signature is the HMAC of the body under the secret")
payload = json.loads(body)
check(payload["recordName"] == "hooked" and payload["reason"] == "created" and payload["notificationID"] == delivery_id, "the body: %s" % payload)

# 5. kill -9 right after a write: after a restart, the notification is still delivered.
courier_path = urllib.parse.urlparse(courier_url()).path
create("crash", "Order", {"total": {"value": 999}})
server.send_signal(signal.SIGKILL)
server.wait()
start()
courier = Courier(base + courier_path)
got = courier.wait(1, 10)
courier.stop = True
check(len(got) == 1 and got[0]["ck"]["qry"]["rid"] == "crash", "the notification written before the kill is delivered after the restart: %s" % got)

server.send_signal(signal.SIGTERM)
server.wait(timeout=30)
print("%d checks passed, 0 failed" % checks, flush=True)
