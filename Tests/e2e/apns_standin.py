#!/usr/bin/env python3
"""A stand-in for Apple's push service (APNs) for Stratus's tests: HTTP/2 over TLS (ALPN h2), as APNs is.

It checks every push the way APNs does -- POST /3/device/{token}, the provider token (an ES256 JWT signed with the
developer's key, with its Key ID and Team ID), apns-topic, apns-push-type and apns-priority -- and answers as APNs
would. A script says how to answer a token: a list of statuses, one per push, the last repeated (410 Unregistered,
429 TooManyRequests..., or "403:ExpiredProviderToken" for a status with a reason). Each push is written to the log as a JSON line.

usage: apns_standin.py --cert C --key K --public-key P --key-id ID --team-id T --topic B --script JSON --log FILE
Prints "listening PORT" once it accepts connections.
"""
import argparse
import base64
import hashlib
import json
import socket
import ssl
import sys
import threading
import time
import uuid

import h2.config
import h2.connection
import h2.events
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

REASONS = {400: "BadDeviceToken", 403: "InvalidProviderToken", 410: "Unregistered", 429: "TooManyRequests", 500: "InternalServerError",
           503: "ServiceUnavailable"}


def b64url(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


class Standin:
    def __init__(self, args):
        self.args = args
        with open(args.public_key, "rb") as f:
            self.public_key = serialization.load_pem_public_key(f.read())
        self.script = json.loads(args.script)
        self.lock = threading.Lock()
        self.log = open(args.log, "a", buffering=1)

    def jwt_problem(self, authorization):
        """None when the provider token is one APNs takes, else why not."""
        if not authorization or not authorization.startswith("bearer "):
            return "no bearer token"
        parts = authorization[len("bearer "):].split(".")
        if len(parts) != 3:
            return "not a JWT"
        try:
            header = json.loads(b64url(parts[0]))
            claims = json.loads(b64url(parts[1]))
            signature = b64url(parts[2])
        except ValueError:
            return "undecodable JWT"
        if header.get("alg") != "ES256" or header.get("kid") != self.args.key_id:
            return "header %r" % header
        if claims.get("iss") != self.args.team_id or abs(time.time() - claims.get("iat", 0)) > 3600:
            return "claims %r" % claims
        if len(signature) != 64:
            return "signature is not r||s"
        der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        try:
            self.public_key.verify(der, (parts[0] + "." + parts[1]).encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            return "bad signature"
        return None

    def answer(self, headers, body):
        path = headers.get(":path", "")
        token = path[len("/3/device/"):] if path.startswith("/3/device/") else ""
        problem = self.jwt_problem(headers.get("authorization"))
        with self.lock:
            statuses = self.script.get(token, [200])
            status = statuses.pop(0) if len(statuses) > 1 else statuses[0]
        # A scripted "403:ExpiredProviderToken" answers that status with that reason.
        scripted_reason = None
        if isinstance(status, str):
            status, scripted_reason = int(status.split(":")[0]), status.split(":", 1)[1]
        if headers.get(":method") != "POST" or not token:
            status = 405 if token else 404
        elif problem:
            status = 403
        elif headers.get("apns-topic") != self.args.topic:
            status, problem = 400, "topic"
        jwt = (headers.get("authorization") or "").encode()
        entry = {"token": token, "status": status, "jwt_ok": problem is None, "problem": problem, "jwt": hashlib.sha256(jwt).hexdigest()[:16],
                 "headers": {k: v for k, v in headers.items() if k != "authorization"}, "body": body.decode("utf-8", "replace")}
        self.log.write(json.dumps(entry) + "\n")
        if status == 200:
            return status, b""
        reason = scripted_reason or ("DeviceTokenNotForTopic" if problem == "topic" else REASONS.get(status, "BadRequest"))
        payload = {"reason": reason}
        if status == 410:
            payload["timestamp"] = int(time.time() * 1000)
        return status, json.dumps(payload).encode()

    def serve_connection(self, raw, context):
        try:
            sock = context.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            raw.close()
            return
        if sock.selected_alpn_protocol() != "h2":
            sock.close()
            return
        conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        conn.initiate_connection()
        sock.sendall(conn.data_to_send())
        streams = {}
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    break
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.RequestReceived):
                        streams[event.stream_id] = (dict(event.headers), bytearray())
                    elif isinstance(event, h2.events.DataReceived):
                        streams[event.stream_id][1].extend(event.data)
                        conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded):
                        headers, body = streams.pop(event.stream_id)
                        status, reply = self.answer(headers, bytes(body))
                        response = [(":status", str(status)), ("apns-id", str(uuid.uuid4()).upper())]
                        if reply:
                            response.append(("content-type", "application/json"))
                            response.append(("content-length", str(len(reply))))
                        conn.send_headers(event.stream_id, response, end_stream=not reply)
                        if reply:
                            conn.send_data(event.stream_id, reply, end_stream=True)
                    elif isinstance(event, h2.events.ConnectionTerminated):
                        return
                out = conn.data_to_send()
                if out:
                    sock.sendall(out)
        except (OSError, ssl.SSLError):
            pass
        finally:
            sock.close()

    def run(self):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.args.cert, self.args.key)
        context.set_alpn_protocols(["h2"])
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        print("listening %d" % listener.getsockname()[1], flush=True)
        while True:
            raw, _ = listener.accept()
            threading.Thread(target=self.serve_connection, args=(raw, context), daemon=True).start()


def main():
    p = argparse.ArgumentParser()
    for name in ["cert", "key", "public-key", "key-id", "team-id", "topic", "script", "log"]:
        p.add_argument("--" + name, required=True)
    Standin(p.parse_args()).run()


if __name__ == "__main__":
    sys.exit(main())
