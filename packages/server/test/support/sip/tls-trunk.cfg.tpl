#!KAMAILIO
# A carrier's SIP-over-TLS edge for tests: Kamailio ends TLS on {{TLS_PORT}} and relays, by
# record-routing proxy, calls from Switchboard to the carrier's side (sipp on UDP port
# {{CARRIER_PORT}}) and calls from that side (to its UDP port {{UDP_PORT}}) to Switchboard
# over TLS. It answers OPTIONS itself, and logs each request it takes over TLS with the name
# its sender gave by SNI. Marks are filled in by test/support/tls-trunk.ts.
debug=2
log_stderror=yes
log_prefix="tls trunk "
children=1
tcp_children=2
auto_aliases=no
enable_tls=yes
listen=udp:127.0.0.1:{{UDP_PORT}}
listen=tls:127.0.0.1:{{TLS_PORT}}
dns=no
rev_dns=no
use_dns_cache=no
mpath="{{MODULES}}"

loadmodule "tls.so"
loadmodule "tm.so"
loadmodule "sl.so"
loadmodule "rr.so"
loadmodule "pv.so"
loadmodule "maxfwd.so"
loadmodule "siputils.so"
loadmodule "textops.so"
loadmodule "xlog.so"

modparam("tls", "config", "{{TLS_CONFIG}}")

request_route {
	if ($pr == "tls") xlog("L_NOTICE", "over TLS: $rm, SNI [$tls_peer_server_name]\n");
	if (!mf_process_maxfwd_header("10")) {
		sl_send_reply("483", "Too Many Hops");
		exit;
	}
	if (is_method("OPTIONS") && $rU == $null) {
		sl_send_reply("200", "OK");
		exit;
	}
	if (has_totag()) {
		if (loose_route()) {
			t_relay();
		} else if (is_method("ACK")) {
			if (t_check_trans()) t_relay();
		} else {
			sl_send_reply("404", "Not Here");
		}
		exit;
	}
	if (is_method("CANCEL")) {
		if (t_check_trans()) t_relay();
		exit;
	}
	record_route();
	if ($pr == "tls") {
		$du = "sip:127.0.0.1:{{CARRIER_PORT}}";
	} else {
		$ru = "sip:" + $rU + "@{{SWITCHBOARD}};transport=tls";
	}
	if (!t_relay()) sl_reply_error();
}
