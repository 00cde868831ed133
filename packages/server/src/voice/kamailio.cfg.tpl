#!KAMAILIO
# Written by `switchboard serve` from packages/server/src/voice/kamailio.cfg.tpl at each start;
# edits here are lost. Its double-braced marks are filled in by voice/kamailio-config.ts.

debug=2
log_stderror=yes
log_prefix="{{LOG_PREFIX}} "
children=2
tcp_children=2
auto_aliases=no
# The registrar and proxy answer for this address; no DNS, no other interface.
listen=udp:{{HOST}}:{{SIP_PORT}}
listen=tcp:{{HOST}}:{{SIP_PORT}}
listen=tcp:{{HOST}}:{{WS_PORT}}
# SIP over TLS, for trunks added with `--transport tls` (voice/kamailio-tls.ts).
enable_tls=yes
listen=tls:{{HOST}}:{{TLS_PORT}}
alias={{HOST}}:{{SIP_PORT}}
tcp_accept_no_cl=yes
dns=no
rev_dns=no
use_dns_cache=no
mpath="{{MODULES}}"

#!define FLT_WEBRTC 1
# A branch of an inbound call forked to another instance's Kamailio (route TO_PEERS).
#!define FLB_PEER 2

# First: OpenSSL is set up by tls before http_client's libcurl uses it.
loadmodule "tls.so"
loadmodule "kex.so"
loadmodule "corex.so"
loadmodule "tm.so"
loadmodule "tmx.so"
loadmodule "sl.so"
loadmodule "rr.so"
loadmodule "pv.so"
loadmodule "maxfwd.so"
loadmodule "usrloc.so"
loadmodule "registrar.so"
loadmodule "textops.so"
loadmodule "siputils.so"
loadmodule "xlog.so"
loadmodule "sanity.so"
loadmodule "nathelper.so"
loadmodule "auth.so"
loadmodule "auth_ephemeral.so"
loadmodule "dialog.so"
loadmodule "xhttp.so"
loadmodule "websocket.so"
loadmodule "rtpengine.so"
loadmodule "http_client.so"
loadmodule "uac.so"
loadmodule "jsonrpcs.so"

modparam("tls", "config", "{{TLS_CONFIG}}")
# $xavp(tls=>server_name) names the host a connection to a trunk sends as SNI.
modparam("tls", "xavp_cfg", "tls")
# How long a call rings: after the first ring at most, and in all.
modparam("tm", "fr_inv_timer", {{RING_TIMEOUT_MS}})
modparam("tm", "max_inv_lifetime", {{RING_TIMEOUT_MS}})
modparam("tm", "restart_fr_on_each_reply", 0)
modparam("rr", "append_fromtag", 1)
modparam("registrar", "max_expires", 600)
modparam("registrar", "gruu_enabled", 0)
modparam("usrloc", "db_mode", 0)
# Credentials are "expiry:account.mode.user", password base64(HMAC-SHA1(secret, username)),
# issued by Switchboard to a signed-in softphone (voice/ephemeral-credentials.ts).
modparam("auth_ephemeral", "secret", "{{SECRET}}")
modparam("dialog", "enable_stats", 0)
modparam("dialog", "default_timeout", 14400)
modparam("rtpengine", "rtpengine_sock", "udp:{{HOST}}:{{RTPENGINE_PORT}}")
modparam("http_client", "connection_timeout", 5)
modparam("jsonrpcs", "transport", 1)
# A trunk's digest login, set per call from Switchboard's answer (route TO_TRUNK).
modparam("uac", "auth_realm_avp", "$avp(trunk_realm)")
modparam("uac", "auth_username_avp", "$avp(trunk_user)")
modparam("uac", "auth_password_avp", "$avp(trunk_pass)")
modparam("uac", "restore_mode", "auto")
modparam("nathelper", "received_avp", "$avp(RECEIVED)")
# A WebSocket device is reached over the connection it registered from.
modparam("registrar", "received_avp", "$avp(RECEIVED)")

request_route {
	if (!mf_process_maxfwd_header("10")) {
		sl_send_reply("483", "Too Many Hops");
		exit;
	}
	if (!sanity_check("17895", "7")) exit;
	if (is_method("OPTIONS") && uri == myself && $rU == $null) {
		sl_send_reply("200", "OK");
		exit;
	}
	if (nat_uac_test("64")) {
		# A WebSocket client's Contact names no reachable address: use the connection's.
		setflag(FLT_WEBRTC);
		force_rport();
		if (is_method("REGISTER")) fix_nated_register(); else set_contact_alias();
	}
	if (has_totag()) {
		route(WITHINDLG);
		exit;
	}
	if (is_method("CANCEL")) {
		if (t_check_trans()) route(RELAY);
		exit;
	}
	t_check_trans();
	if (is_method("REGISTER")) {
		route(REGISTRAR);
		exit;
	}
	if (!is_method("INVITE")) {
		sl_send_reply("405", "Method Not Allowed");
		exit;
	}
	if ($hdr(X-Switchboard-Peer) != $null) {
		route(FROM_PEER);
		exit;
	}
	if ($hdr(X-Switchboard-Voice) != $null) {
		route(TO_SOFTPHONES);
		exit;
	}
	# Softphones speak over WebSockets with ephemeral logins ("expiry:…"); anything else may
	# be a trunk calling one of the account's live numbers.
	if (!isflagset(FLT_WEBRTC) && !($au =~ ":")) route(FROM_TRUNK);
	route(AUTH);
	if ($(var(aor){s.select,1,.}) == "live") {
		route(TO_TRUNK);
		exit;
	}
	record_route();
	dlg_manage();
	$dlg_var(aor) = $var(aor);
	$dlg_var(from) = $fU;
	$dlg_var(to) = $rU;
	$dlg_var(direction) = "outbound";
	# Every call from a softphone goes to the far end: the sandbox's in test mode.
	$ru = "sip:" + $rU + "@{{FAR_END}}";
	route(RELAY);
}

# A call to an account's softphones (`acct_….test`), placed by Switchboard (the sandbox caller,
# holding this run's token): every registered device rings at once, the first answer takes it
# and tm cancels the others with "Reason: SIP;cause=200" (answered elsewhere).
route[TO_SOFTPHONES] {
	if ($hdr(X-Switchboard-Voice) != "{{TOKEN}}") {
		sl_send_reply("403", "Forbidden");
		exit;
	}
	$var(to) = $hdr(X-Switchboard-To);
	remove_hf("X-Switchboard-Voice");
	remove_hf("X-Switchboard-To");
	$var(aor) = $rU;
	route(RING);
}

# Rings every device registered as $var(aor) for a call from $fU to $var(to).
route[RING] {
	record_route();
	dlg_manage();
	$dlg_var(aor) = $var(aor);
	$dlg_var(from) = $fU;
	$dlg_var(to) = $var(to);
	$dlg_var(direction) = "inbound";
	route(PEERS);
	if (registered("location")) {
		# The peers' branches first: appended after lookup, they would copy the main branch's
		# device destination and connection (a WebSocket's).
		$var(i) = 0;
		route(TO_PEERS);
		if (!lookup("location")) {
			send_reply("480", "Temporarily Unavailable");
			exit;
		}
	} else if ($var(peers) != "") {
		# None here: the first peer's branch is the main one.
		$ru = $(var(peers){s.select,0,|});
		$var(i) = 1;
		route(TO_PEERS);
	} else {
		send_reply("480", "Temporarily Unavailable");
		exit;
	}
	t_on_branch("TO_DEVICE");
	t_on_reply("REPLY");
	if (!t_relay()) sl_reply_error();
}

# An INVITE that is no softphone's: Switchboard says whether $rU is a live number with a trunk
# (404: no, then it is a softphone's after all), whose softphones ring, and whether the sender
# is the trunk by its address or must prove it with the trunk's digest credentials.
route[FROM_TRUNK] {
	$var(body) = '{"to":"' + $(rU{s.escape.common}) + '","source":"' + $si + '"}';
	http_client_query("{{CONTROL_URL}}/voice/inbound", "$var(body)",
		"Content-Type: application/json\r\nX-Switchboard-Voice: {{TOKEN}}", "$var(answer)");
	$var(code) = $rc;
	if ($var(code) == 404) return;
	if ($var(code) != 200) {
		sl_send_reply("403", "Forbidden");
		exit;
	}
	if ($(var(answer){s.select,1,|}) != "1") {
		$var(user) = $(var(answer){s.select,2,|}{s.decode.base64});
		$var(pass) = $(var(answer){s.select,3,|}{s.decode.base64});
		pv_proxy_authenticate("switchboard", "$var(pass)", "0");
		$var(auth) = $rc;
		if ($var(auth) == -4 || $var(auth) == -5) {
			auth_challenge("switchboard", "0");
			exit;
		}
		if ($var(auth) < 0 || $au != $var(user)) {
			sl_send_reply("403", "Forbidden");
			exit;
		}
		consume_credentials();
	}
	$var(aor) = $(var(answer){s.select,0,|});
	$var(to) = $rU;
	$ru = "sip:" + $var(aor) + "@{{HOST}}";
	route(RING);
	exit;
}

# A live softphone's call: Switchboard names the trunk, the number shown as caller ID, the
# trunk's digest login (used if the trunk challenges, in TRUNK_AUTH), the name sent as SNI and
# why the trunk is refused ("-" for none of either).
route[TO_TRUNK] {
	$var(body) = '{"aor":"' + $var(aor) + '","from":"' + $(fU{s.escape.common}) + '","to":"'
		+ $(rU{s.escape.common}) + '"}';
	http_client_query("{{CONTROL_URL}}/voice/route", "$var(body)",
		"Content-Type: application/json\r\nX-Switchboard-Voice: {{TOKEN}}", "$var(answer)");
	if ($rc != 200) {
		sl_send_reply("403", "No trunk for this call");
		exit;
	}
	$var(number) = $(var(answer){s.select,1,|});
	$avp(trunk_user) = $(var(answer){s.select,2,|}{s.decode.base64});
	$avp(trunk_pass) = $(var(answer){s.select,3,|}{s.decode.base64});
	# The number as caller ID; restored toward the softphone from the Record-Route.
	$var(from_uri) = "sip:" + $var(number) + "@{{HOST}}";
	uac_replace_from("$var(from_uri)");
	record_route();
	dlg_manage();
	$dlg_var(aor) = $var(aor);
	$dlg_var(from) = $var(number);
	$dlg_var(to) = $rU;
	$dlg_var(direction) = "outbound";
	$var(refused) = $(var(answer){s.select,5,|});
	if ($var(refused) != "-") {
		# A TLS trunk whose certificate is not trusted or does not name it: no INVITE goes
		# there; the call fails at once, recorded as one the trunk did not take.
		xlog("L_WARN", "call $ci to its trunk refused: $var(refused)\n");
		t_send_reply("503", "Trunk not trusted");
		exit;
	}
	$ru = $(var(answer){s.select,0,|});
	# SNI for a TLS trunk named by host name (the tls module's xavp_cfg).
	$var(sni) = $(var(answer){s.select,4,|});
	if ($var(sni) != "-") $xavp(tls=>server_name) = $var(sni);
	# Kamailio learns of a failed TLS handshake only when the branch times out (tcp_async=no
	# does not change that in 5.6): a trunk not answering at all (not even 100) within 3 s
	# fails the call then, in TRUNK_AUTH, instead of at the ring timeout.
	if ($ru =~ ";transport=tls") t_set_fr(0, 3000);
	t_on_failure("TRUNK_AUTH");
	route(RELAY);
}

failure_route[TRUNK_AUTH] {
	if (t_is_canceled()) exit;
	if (t_branch_timeout() && !t_branch_replied()) {
		xlog("L_WARN", "call $ci: its trunk did not answer\n");
		t_reply("503", "Trunk unreachable");
		exit;
	}
	if (t_check_status("401|407") && $avp(trunk_user) != "") {
		# uac_auth takes the login for the realm the trunk names.
		if ($T_rpl($hdr(Proxy-Authenticate)) != $null) {
			$var(challenge) = $T_rpl($hdr(Proxy-Authenticate));
		} else {
			$var(challenge) = $T_rpl($hdr(WWW-Authenticate));
		}
		$avp(trunk_realm) = $(var(challenge){re.subst,/^.*realm="([^"]*)".*$/\1/});
			if (uac_auth()) t_relay();
	}
}

branch_route[TO_DEVICE] {
	if ($(ru{uri.param,sb_peer}) == "1") {
		route(PEER_BRANCH);
		exit;
	}
	handle_ruri_alias();
	if (has_body("application/sdp")) {
		if ($ru =~ "transport=ws") {
			rtpengine_manage("trust-address replace-origin replace-session-connection ICE=force UDP/TLS/RTP/SAVPF rtcp-mux-offer SDES-off");
		} else {
			rtpengine_manage("trust-address replace-origin replace-session-connection ICE=remove RTP/AVP rtcp-mux-demux");
		}
	}
}

# ---- Forking inbound calls across instances (voice_instances; docs/architecture.md, voice) ----

# The other live instances' Kamailio as branch URIs ("sip:aor@host:port;sb_peer=1|…"), in
# $var(peers); empty when there are none or Switchboard does not answer.
route[PEERS] {
	$var(peers) = "";
	$var(body) = '{"aor":"' + $var(aor) + '"}';
	http_client_query("{{CONTROL_URL}}/voice/peers", "$var(body)",
		"Content-Type: application/json\r\nX-Switchboard-Voice: {{TOKEN}}", "$var(answer)");
	if ($rc == 200) $var(peers) = $var(answer);
}

# A branch to each peer from the $var(i)th on.
route[TO_PEERS] {
	if ($var(peers) == "") return;
	$var(count) = $(var(peers){s.count,|}) + 1;
	while ($var(i) < $var(count)) {
		$var(uri) = $(var(peers){s.select,$var(i),|});
		append_branch("$var(uri)");
		$var(i) = $var(i) + 1;
	}
}

# On this branch alone the peers' token goes out, and no rtpengine: the peer's rtpengine
# anchors the media and bridges WebRTC for its softphones, so the audio crosses one relay, not
# two, and this rtpengine never takes two answers (one per instance) for one call.
route[PEER_BRANCH] {
	setbflag(FLB_PEER);
	append_hf("X-Switchboard-Peer: {{PEER_TOKEN}}\r\n");
}

# A call another instance forked here, proven by the peers' token: rings the softphones
# registered here. No dialog: the instance that forked it reports and records the call.
route[FROM_PEER] {
	if ($hdr(X-Switchboard-Peer) != "{{PEER_TOKEN}}") {
		sl_send_reply("403", "Forbidden");
		exit;
	}
	remove_hf("X-Switchboard-Peer");
	record_route();
	if (!lookup("location")) {
		send_reply("480", "Temporarily Unavailable");
		exit;
	}
	t_on_branch("TO_DEVICE");
	t_on_reply("REPLY");
	if (!t_relay()) sl_reply_error();
}

# ---- End of forking across instances ----

route[AUTH] {
	# The account and mode an ephemeral user belongs to, "acct_….test", from "expiry:acct_….test.usr_…".
	if (!autheph_proxy("switchboard")) {
		auth_challenge("switchboard", "0");
		exit;
	}
	$var(uid) = $(aU{s.select,1,:});
	$var(aor) = $(var(uid){s.select,0,.}) + "." + $(var(uid){s.select,1,.});
	consume_credentials();
}

route[REGISTRAR] {
	if (!autheph_www("switchboard")) {
		auth_challenge("switchboard", "0");
		exit;
	}
	$var(uid) = $(aU{s.select,1,:});
	$var(aor) = $(var(uid){s.select,0,.}) + "." + $(var(uid){s.select,1,.});
	# A softphone registers under its own account and mode only.
	if ($tU != $var(aor)) {
		sl_send_reply("403", "Forbidden");
		exit;
	}
	consume_credentials();
	if (!save("location")) sl_reply_error();
}

route[WITHINDLG] {
	if (loose_route()) {
		# Toward a WebSocket client: the connection its alias names, unless a Route leads on to
		# another instance's Kamailio (a forked call, route FROM_PEER), whose client it is.
		if ($du == $null) handle_ruri_alias();
		if (is_method("BYE")) rtpengine_delete();
		route(RELAY);
		exit;
	}
	if (is_method("ACK")) {
		if (t_check_trans()) route(RELAY);
		exit;
	}
	sl_send_reply("404", "Not Here");
}

route[RELAY] {
	# A browser speaks WebRTC (ICE, DTLS-SRTP); SIP phones and trunks plain RTP: rtpengine
	# bridges the two, and is asked to on the offer here and on the answer in REPLY.
	if (is_method("INVITE") && has_body("application/sdp")) {
		rtpengine_manage("trust-address replace-origin replace-session-connection ICE=remove RTP/AVP rtcp-mux-demux");
	}
	if (is_method("INVITE")) t_on_reply("REPLY");
	if (!t_relay()) sl_reply_error();
	exit;
}

onreply_route[REPLY] {
	# A peer's answer comes with its own rtpengine's media (route PEER_BRANCH).
	if (isbflagset(FLB_PEER)) exit;
	# A device answering over its WebSocket is reached again, in the dialog, over that connection.
	if (nat_uac_test("64")) set_contact_alias();
	if (has_body("application/sdp")) {
		if (isflagset(FLT_WEBRTC)) {
			rtpengine_manage("trust-address replace-origin replace-session-connection ICE=force UDP/TLS/RTP/SAVPF rtcp-mux-require SDES-off");
		} else {
			rtpengine_manage("trust-address replace-origin replace-session-connection ICE=remove RTP/AVP rtcp-mux-demux");
		}
	}
}

# A dialog's end and a call that never connected are reported to Switchboard, which records
# the call (`record-call`) with the whole seconds from answer to hang-up.
# An answered call is kept open by Switchboard until its end: if that is never seen (a restart),
# it is still recorded, lasting as long as it was last known to run (its dialogs, over /RPC).
event_route[dialog:start] {
	$var(outcome) = "answered";
	$var(duration) = 0;
	route(REPORT);
}

event_route[dialog:end] {
	$var(outcome) = "completed";
	$var(duration) = $TS - $dlg(start_ts);
	route(REPORT);
}

event_route[dialog:failed] {
	$var(outcome) = "missed";
	$var(duration) = 0;
	route(REPORT);
}

route[REPORT] {
	$var(body) = '{"call_id":"' + $(ci{s.escape.common}) + '","aor":"' + $(dlg_var(aor){s.escape.common})
		+ '","from":"' + $(dlg_var(from){s.escape.common}) + '","to":"' + $(dlg_var(to){s.escape.common})
		+ '","direction":"' + $dlg_var(direction) + '","outcome":"' + $var(outcome)
		+ '","duration":' + $var(duration) + '}';
	http_client_query("{{CONTROL_URL}}/voice/events", "$var(body)",
		"Content-Type: application/json\r\nX-Switchboard-Voice: {{TOKEN}}", "$var(answer)");
	if ($rc != 201) xlog("L_ERR", "call $ci not reported: $rc $var(answer)\n");
}

event_route[xhttp:request] {
	# Kamailio's RPC (the dialogs it holds), for Switchboard alone.
	if ($hu =~ "^/RPC" && $hdr(X-Switchboard-Voice) == "{{TOKEN}}") {
		jsonrpc_dispatch();
		exit;
	}
	if ($hdr(Upgrade) =~ "websocket" && $hdr(Connection) =~ "Upgrade" && $rm =~ "GET") {
		if (ws_handle_handshake()) exit;
	}
	xhttp_reply("404", "Not Found", "", "");
}
