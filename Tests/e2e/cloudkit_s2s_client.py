#!/usr/bin/env python3
"""A CloudKit Web Services client written from Apple's documentation, independent of Stratus's code.

It signs server-to-server requests (ECDSA P-256 over "date:base64(sha256(body)):subpath"), creates records,
queries them, pages through a continuation marker, modifies with a stale change tag and expects CONFLICT,
uploads an asset and downloads it again. Configuration comes from the environment:
STRATUS_URL, STRATUS_CONTAINER, STRATUS_KEY_ID, STRATUS_KEY_FILE. Exits non-zero on the first failure.
"""
import base64
import datetime
import hashlib
import json
import os
import sys

import requests
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

BASE = os.environ["STRATUS_URL"].rstrip("/")
CONTAINER = os.environ["STRATUS_CONTAINER"]
KEY_ID = os.environ["STRATUS_KEY_ID"]
with open(os.environ["STRATUS_KEY_FILE"], "rb") as f:
    KEY = serialization.load_pem_private_key(f.read(), password=None)

checks = 0


def check(condition, message):
    global checks
    if not condition:
        print("FAIL: " + message)
        sys.exit(1)
    checks += 1


def call(operation, body):
    subpath = "/database/1/%s/development/public/%s" % (CONTAINER, operation)
    data = json.dumps(body, indent=2).encode()  # pretty-printed, as some clients send: the exact bytes are signed
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    digest = base64.b64encode(hashlib.sha256(data).digest()).decode()
    signature = KEY.sign(("%s:%s:%s" % (date, digest, subpath)).encode(), ec.ECDSA(hashes.SHA256()))
    headers = {
        "Content-Type": "application/json",
        "X-Apple-CloudKit-Request-KeyID": KEY_ID,
        "X-Apple-CloudKit-Request-ISO8601Date": date,
        "X-Apple-CloudKit-Request-SignatureV1": base64.b64encode(signature).decode(),
    }
    response = requests.post(BASE + subpath, data=data, headers=headers, timeout=120)
    return response.status_code, response.json()


# Create 250 records in two batches (at most 200 operations per request).
operations = [{"operationType": "create", "record": {"recordName": "item-%03d" % i, "recordType": "Item",
               "fields": {"n": {"value": i}, "label": {"value": "item %d" % i, "type": "STRING"}}}} for i in range(250)]
for chunk in (operations[:200], operations[200:]):
    status, body = call("records/modify", {"operations": chunk, "atomic": False})
    check(status == 200, "records/modify answered %d: %s" % (status, body))
    check(all("recordChangeTag" in r for r in body["records"]), "every created record has a change tag")

# Query, sorted, and page through the continuation marker.
seen, marker, pages = [], None, 0
while True:
    request = {"query": {"recordType": "Item", "sortBy": [{"fieldName": "n", "ascending": True}]}, "resultsLimit": 100}
    if marker:
        request["continuationMarker"] = marker
    status, body = call("records/query", request)
    check(status == 200, "records/query answered %d: %s" % (status, body))
    seen += [r["fields"]["n"]["value"] for r in body["records"]]
    pages += 1
    marker = body.get("continuationMarker")
    if not marker:
        break
check(seen == list(range(250)), "paging returned every record once, in order")
check(pages == 3, "250 records in pages of 100 take 3 pages, took %d" % pages)

# A stale change tag is a CONFLICT for that record, inside an HTTP 200.
status, body = call("records/lookup", {"records": [{"recordName": "item-007"}]})
tag = body["records"][0]["recordChangeTag"]
update = {"operations": [{"operationType": "update", "record": {"recordName": "item-007", "recordType": "Item",
          "recordChangeTag": tag, "fields": {"label": {"value": "changed"}}}}]}
status, body = call("records/modify", update)
check(status == 200 and "serverErrorCode" not in body["records"][0], "update with the current tag succeeds")
status, body = call("records/modify", update)
check(status == 200, "a conflict still answers 200")
check(body["records"][0].get("serverErrorCode") == "CONFLICT", "a stale tag gives CONFLICT: %s" % body)

# Upload an asset, attach it to a record, and download it.
content = os.urandom(70000)
status, body = call("assets/upload", {"tokens": [{"recordName": "with-photo", "recordType": "Item", "fieldName": "photo"}]})
check(status == 200, "assets/upload answered %d: %s" % (status, body))
upload = requests.post(body["tokens"][0]["url"], data=content, timeout=120)
check(upload.status_code == 200, "uploading the bytes answered %d" % upload.status_code)
single = upload.json()["singleFile"]
check(single["size"] == len(content), "the upload reports its size")
status, body = call("records/modify", {"operations": [{"operationType": "create", "record": {"recordName": "with-photo",
                    "recordType": "Item", "fields": {"photo": {"value": single, "type": "ASSETID"}}}}]})
check(status == 200 and "serverErrorCode" not in body["records"][0], "a record takes the uploaded asset: %s" % body)
status, body = call("records/lookup", {"records": [{"recordName": "with-photo"}]})
url = body["records"][0]["fields"]["photo"]["value"]["downloadURL"]
download = requests.get(url, timeout=120)
check(download.status_code == 200 and download.content == content, "the downloaded bytes are the uploaded ones")
tampered = requests.get(url.replace("e=", "e=9"), timeout=120)
check(tampered.status_code == 404, "a download URL with an edited expiry is refused")

print("%d passed, 0 failed" % checks)
