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
alias={{HOST}}:{{SIP_PORT}}
tcp_accept_no_cl=yes
dns=no
rev_dns=no
use_dns_cache=no
mpath="{{MODULES}}"

#!define FLT_WEBRTC 1

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
	if ($hdr(X-Switchboard-Voice) != $null) {
		route(TO_SOFTPHONES);
		exit;
	}
	route(AUTH);
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
	record_route();
	dlg_manage();
	$dlg_var(aor) = $rU;
	$dlg_var(from) = $fU;
	$dlg_var(to) = $var(to);
	$dlg_var(direction) = "inbound";
	if (!lookup("location")) {
		send_reply("480", "Temporarily Unavailable");
		exit;
	}
	t_on_branch("TO_DEVICE");
	t_on_reply("REPLY");
	if (!t_relay()) sl_reply_error();
}

branch_route[TO_DEVICE] {
	handle_ruri_alias();
	if (has_body("application/sdp")) {
		if ($ru =~ "transport=ws") {
			rtpengine_manage("trust-address replace-origin replace-session-connection ICE=force UDP/TLS/RTP/SAVPF rtcp-mux-offer SDES-off");
		} else {
			rtpengine_manage("trust-address replace-origin replace-session-connection ICE=remove RTP/AVP rtcp-mux-demux");
		}
	}
}

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
		# Toward a WebSocket client: the connection its alias names.
		handle_ruri_alias();
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
	if ($rc != 201) xlog("L_ERR", "call $ci not recorded: $rc $var(answer)\n");
}

event_route[xhttp:request] {
	if ($hdr(Upgrade) =~ "websocket" && $hdr(Connection) =~ "Upgrade" && $rm =~ "GET") {
		if (ws_handle_handshake()) exit;
	}
	xhttp_reply("404", "Not Found", "", "");
}
