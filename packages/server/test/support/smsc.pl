#!/usr/bin/perl
# A small SMSC for the ESME's tests, on Debian's Net::SMPP (libnet-smpp-perl). It listens
# on 127.0.0.1, takes binds with the configured credentials (a wrong password gets
# ESME_RINVPASWD), answers submit_sm with message ids in decimal or hex, follows each with
# a receipt (Appendix B text, TLVs, or both), and does on command what an SMSC does now
# and then: throttle, hold or drop responses, send a text from a handset, an enquire_link,
# an unknown command, a broken PDU, any octets at all, an unbind.
#
#   smsc.pl --port 0 --system-id test --password secret --resp-ids hex --receipt-ids dec
#           --receipt text|tlv|both|none --stat DELIVRD
#
# Commands arrive as JSON lines on stdin ({"cmd":"throttle","count":2,"id":1}, see `run_command`).
# Everything it receives and sends is logged as JSON lines on stdout, with `t` in ms.
use strict;
use warnings;
use Getopt::Long;
use IO::Select;
use JSON::PP;
use POSIX qw(strftime);
use Time::HiRes qw(time);
use Net::SMPP;

my %opt = (
    'port'        => 0,
    'system-id'   => 'test',
    'password'    => 'secret',
    'resp-ids'    => 'dec',
    'receipt-ids' => 'dec',
    'receipt'     => 'text',
    'stat'        => 'DELIVRD',
    'first-id'    => 1000000,
);
GetOptions(\%opt, 'port=i', 'system-id=s', 'password=s', 'resp-ids=s', 'receipt-ids=s',
    'receipt=s', 'stat=s', 'first-id=i')
    or die "bad options\n";

$| = 1;
my $json = JSON::PP->new->canonical->ascii;

sub out {
    my (%fields) = @_;
    $fields{t} = int(time * 1000);
    print $json->encode(\%fields), "\n";
}

my %STATE_OF = (ENROUTE => 1, DELIVRD => 2, EXPIRED => 3, DELETED => 4, UNDELIV => 5,
    ACCEPTD => 6, UNKNOWN => 7, REJECTD => 8);

my $server = Net::SMPP->new_listen('127.0.0.1', port => $opt{port}, async => 1,
    smpp_version => 0x34) or die "cannot listen: $!\n";
out(event => 'listening', port => $server->sockport);

my $select = IO::Select->new($server, \*STDIN);
my %conns;    # by fileno: { smpp, mode, bound, since }
my $next_id = $opt{'first-id'};
my %control = (throttle => 0, throttle_status => 0x58, silent => 0, hold => 0);
my @held;     # submit_sm waiting for `release`: [conn, pdu, number]
my $stdin = '';

sub fmt_id {
    my ($n, $how) = @_;
    return $how eq 'hex' ? sprintf('%X', $n) : "$n";
}

# The connection deliver_sm goes to: the newest bound receiver or transceiver.
sub receiver {
    my @ok = sort { $b->{since} <=> $a->{since} }
        grep { $_->{bound} && $_->{mode} ne 'bind_transmitter' } values %conns;
    return $ok[0];
}

sub any_bound {
    my @ok = sort { $b->{since} <=> $a->{since} } grep { $_->{bound} } values %conns;
    return $ok[0];
}

sub drop {
    my ($conn, $why) = @_;
    $select->remove($conn->{smpp});
    delete $conns{ fileno($conn->{smpp}) // -1 };
    for my $key (keys %conns) { delete $conns{$key} if $conns{$key} == $conn }
    close $conn->{smpp};
    @held = grep { $_->[0] != $conn } @held;
    out(event => 'disconnected', reason => $why);
}

sub send_receipt {
    my ($submit, $number) = @_;
    return if $opt{receipt} eq 'none';
    my $conn = receiver() or return;
    my $date = strftime('%y%m%d%H%M', localtime);
    my $stat = $opt{stat};
    my $text = substr($submit->{short_message} // '', 0, 20);
    $text =~ s/[^ -~]/./g;
    my @params = (
        source_addr_ton  => $submit->{dest_addr_ton},
        source_addr_npi  => $submit->{dest_addr_npi},
        source_addr      => $submit->{destination_addr},
        dest_addr_ton    => $submit->{source_addr_ton},
        dest_addr_npi    => $submit->{source_addr_npi},
        destination_addr => $submit->{source_addr},
        esm_class        => 0x04,
        short_message    => '',
    );
    if ($opt{receipt} eq 'text' || $opt{receipt} eq 'both') {
        my $err = $stat eq 'DELIVRD' ? '000' : '001';
        $params[-1] = sprintf('id:%s sub:001 dlvrd:%s submit date:%s done date:%s stat:%s err:%s text:%s',
            fmt_id($number, $opt{'receipt-ids'}), $stat eq 'DELIVRD' ? '001' : '000',
            $date, $date, $stat, $err, $text);
    }
    if ($opt{receipt} eq 'tlv' || $opt{receipt} eq 'both') {
        push @params, receipted_message_id => fmt_id($number, $opt{'resp-ids'}) . "\0",
            message_state => pack('C', $STATE_OF{$stat} // 7);
    }
    my $seq = $conn->{smpp}->deliver_sm(@params);
    out(event => 'sent', command => 'deliver_sm', kind => 'receipt', seq => $seq,
        message_id => fmt_id($number, $opt{'resp-ids'}));
}

sub answer_submit {
    my ($conn, $pdu, $number) = @_;
    my $id = fmt_id($number, $opt{'resp-ids'});
    $conn->{smpp}->submit_sm_resp(message_id => $id, seq => $pdu->{seq});
    out(event => 'sent', command => 'submit_sm_resp', seq => $pdu->{seq}, message_id => $id);
    send_receipt($pdu, $number);
}

sub hexed { return defined $_[0] ? unpack('H*', $_[0]) : undef }

sub on_submit {
    my ($conn, $pdu) = @_;
    my %log = (event => 'pdu', command => 'submit_sm', seq => $pdu->{seq},
        map({ $_ => $pdu->{$_} } qw(source_addr source_addr_ton source_addr_npi destination_addr
            dest_addr_ton dest_addr_npi esm_class data_coding registered_delivery)),
        short_message => hexed($pdu->{short_message}),
        message_payload => hexed($pdu->{message_payload}));
    if ($control{silent} > 0) {
        $control{silent}--;
        out(%log, answer => 'none');
    } elsif ($control{throttle} > 0) {
        $control{throttle}--;
        out(%log, answer => $control{throttle_status});
        $conn->{smpp}->submit_sm_resp(message_id => '', seq => $pdu->{seq},
            status => $control{throttle_status});
    } elsif ($control{hold}) {
        out(%log, answer => 'held');
        push @held, [$conn, $pdu, $next_id++];
    } else {
        out(%log, answer => 0);
        answer_submit($conn, $pdu, $next_id++);
    }
}

sub on_bind {
    my ($conn, $pdu, $mode) = @_;
    my $status = $pdu->{system_id} ne $opt{'system-id'} ? 0x0F
        : $pdu->{password} ne $opt{password} ? 0x0E : 0;
    my $method = "${mode}_resp";
    $conn->{smpp}->$method(system_id => 'perl-smsc', seq => $pdu->{seq}, status => $status);
    out(event => 'pdu', command => $mode, seq => $pdu->{seq}, system_id => $pdu->{system_id},
        interface_version => $pdu->{interface_version}, answer => $status);
    if ($status == 0) {
        @$conn{qw(bound mode since)} = (1, $mode, time);
    }
}

my %BIND = (0x00000001 => 'bind_receiver', 0x00000002 => 'bind_transmitter',
    0x00000009 => 'bind_transceiver');
my %RESP = (0x80000005 => 'deliver_sm_resp', 0x80000015 => 'enquire_link_resp',
    0x80000006 => 'unbind_resp', 0x80000000 => 'generic_nack', 0x80000103 => 'data_sm_resp');

sub on_pdu {
    my ($conn) = @_;
    my $pdu = $conn->{smpp}->read_pdu();
    if (!$pdu) { drop($conn, 'closed'); return }
    my $cmd = $pdu->{cmd};
    if ($BIND{$cmd}) { on_bind($conn, $pdu, $BIND{$cmd}) }
    elsif ($cmd == 0x00000004) { on_submit($conn, $pdu) }
    elsif ($RESP{$cmd}) {
        out(event => 'pdu', command => $RESP{$cmd}, seq => $pdu->{seq}, status => $pdu->{status});
    } elsif ($cmd == 0x00000015) {
        out(event => 'pdu', command => 'enquire_link', seq => $pdu->{seq});
        $conn->{smpp}->enquire_link_resp(seq => $pdu->{seq});
    } elsif ($cmd == 0x00000006) {
        out(event => 'pdu', command => 'unbind', seq => $pdu->{seq});
        $conn->{smpp}->unbind_resp(seq => $pdu->{seq});
        drop($conn, 'unbound');
    } else {
        out(event => 'pdu', command => sprintf('0x%08x', $cmd), seq => $pdu->{seq});
        $conn->{smpp}->generic_nack(seq => $pdu->{seq}, status => 0x03);
    }
}

sub raw {
    my ($conn, $bytes) = @_;
    $conn->{smpp}->syswrite($bytes);
}

# Carries out one command line, then says so ({"event":"done","id":…}) for the test to wait on.
sub control {
    my ($line) = @_;
    my $c = eval { $json->decode($line) } or do { out(event => 'bad_command', line => $line); return };
    run_command($c, $line);
    out(event => 'done', id => $c->{id});
}

sub run_command {
    my ($c, $line) = @_;
    my $cmd = $c->{cmd} // '';
    if ($cmd eq 'throttle') {
        $control{throttle} = $c->{count} // 1;
        $control{throttle_status} = $c->{status} // 0x58;
    } elsif ($cmd eq 'silent') { $control{silent} = $c->{count} // 1 }
    elsif ($cmd eq 'hold') { $control{hold} = 1 }
    elsif ($cmd eq 'release') {
        $control{hold} = 0;
        answer_submit(@$_) for splice @held;
    } elsif ($cmd eq 'quit') { exit 0 }
    elsif ($cmd eq 'close') { drop($_, 'closed by command') for values %conns }
    else {
        my $conn = $cmd eq 'mo' ? receiver() : any_bound();
        if (!$conn) { out(event => 'no_connection', cmd => $cmd); return }
        my $seq;
        if ($cmd eq 'mo') {
            my @tlvs;
            push @tlvs, message_payload => pack('H*', $c->{payload_hex}) if defined $c->{payload_hex};
            if ($c->{sar}) {
                my ($ref, $total, $n) = @{ $c->{sar} };
                push @tlvs, sar_msg_ref_num => pack('n', $ref), sar_total_segments => pack('C', $total),
                    sar_segment_seqnum => pack('C', $n);
            }
            $seq = $conn->{smpp}->deliver_sm(
                source_addr_ton => $c->{source_ton} // 1, source_addr_npi => 1,
                source_addr => $c->{source}, dest_addr_ton => 1, dest_addr_npi => 1,
                destination_addr => $c->{dest}, esm_class => $c->{esm_class} // 0,
                data_coding => $c->{data_coding} // 0,
                short_message => pack('H*', $c->{hex} // ''), @tlvs);
        } elsif ($cmd eq 'enquire_link') { $seq = $conn->{smpp}->enquire_link() }
        elsif ($cmd eq 'unbind') { $seq = $conn->{smpp}->unbind() }
        elsif ($cmd eq 'unknown') {
            $seq = 77;
            raw($conn, pack('NNNN', 16, $c->{command_id} // 0x00000099, 0, $seq));
        } elsif ($cmd eq 'raw') {
            $seq = $c->{seq};
            raw($conn, pack('H*', $c->{hex}));
        } elsif ($cmd eq 'garbage') {
            $seq = 78;
            # command_length 8: under the 16-octet header, so the stream cannot be framed.
            raw($conn, pack('NNNN', 8, 0x00000015, 0, $seq));
        } else { out(event => 'bad_command', line => $line); return }
        out(event => 'sent', command => $cmd, seq => $seq, tag => $c->{tag});
    }
}

while (1) {
    for my $fh ($select->can_read(1)) {
        if ($fh == $server) {
            my $smpp = $server->accept or next;
            $conns{ fileno($smpp) } = { smpp => $smpp, mode => '', bound => 0, since => 0 };
            $select->add($smpp);
            out(event => 'connected');
        } elsif ($fh == \*STDIN) {
            my $n = sysread(STDIN, $stdin, 65536, length $stdin);
            exit 0 if !$n;    # the test process went away
            while ($stdin =~ s/^(.*?)\n//) { control($1) if length $1 }
        } else {
            my ($conn) = grep { $_->{smpp} == $fh } values %conns;
            on_pdu($conn) if $conn;
        }
    }
}
