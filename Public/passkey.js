// The sign-in pages' passkey buttons. A button names what it does (`data-passkey`): sign-in, account (sign in to
// the account page), create-account or add; where it asks for the ceremony's options (`data-options`, which begins
// the ceremony on the server) or the options themselves (`data-options-json`); and where the browser's answer goes
// (`data-finish`). The answer is posted as a form, every value base64url, so the server answers with a page as a
// password sign-in does. User verification is required; the passkey is discoverable (it names its account).
(function () {
  function b64u(buffer) {
    var s = "", bytes = new Uint8Array(buffer);
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function bytes(text) {
    var s = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
    var out = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  }
  function post(action, fields) {
    var form = document.createElement("form");
    form.method = "post";
    form.action = action;
    Object.keys(fields).forEach(function (name) {
      var input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      input.value = fields[name];
      form.appendChild(input);
    });
    document.body.appendChild(form);
    form.submit();
  }
  function fail(message) {
    var el = document.getElementById("passkey-error");
    if (!el) return;
    el.textContent = message;
    el.hidden = false;
  }
  function ceremony(button, options) {
    var finish = button.getAttribute("data-finish");
    // A console form carries its session's CSRF token.
    var csrf = button.getAttribute("data-csrf");
    function send(action, fields) { if (csrf) fields.csrf = csrf; post(action, fields); }
    if (options.user) {
      return navigator.credentials.create({ publicKey: {
        challenge: bytes(options.challenge), rp: { id: options.rpId, name: options.rpName },
        user: { id: bytes(options.user.id), name: options.user.name, displayName: options.user.displayName },
        pubKeyCredParams: [{ type: "public-key", alg: -7 }, { type: "public-key", alg: -257 }],
        authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
        attestation: "none", timeout: 120000
      } }).then(function (c) {
        send(finish, { kind: "create", id: b64u(c.rawId), clientDataJSON: b64u(c.response.clientDataJSON),
                       attestationObject: b64u(c.response.attestationObject) });
      });
    }
    return navigator.credentials.get({ publicKey: {
      challenge: bytes(options.challenge), rpId: options.rpId, userVerification: "required", timeout: 120000
    } }).then(function (c) {
      send(finish, { kind: "get", id: b64u(c.rawId), clientDataJSON: b64u(c.response.clientDataJSON),
                     authenticatorData: b64u(c.response.authenticatorData), signature: b64u(c.response.signature),
                     userHandle: c.response.userHandle ? b64u(c.response.userHandle) : "" });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("[data-passkey]"), function (button) {
    if (!window.PublicKeyCredential) { button.hidden = true; return; }
    button.addEventListener("click", function () {
      var embedded = button.getAttribute("data-options-json");
      var options = embedded ? Promise.resolve(JSON.parse(embedded))
        : fetch(button.getAttribute("data-options"), { method: "POST", credentials: "same-origin" }).then(function (r) {
            return r.json().then(function (j) { if (!r.ok) throw new Error(j.reason || "passkeys are not available"); return j; });
          });
      options.then(function (o) { return ceremony(button, o); }).catch(function (e) {
        fail("Signing in with a passkey did not work: " + (e && e.message ? e.message : e));
      });
    });
  });
})();
