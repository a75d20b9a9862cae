# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# A telemetry client for the cpe tests (cpe_ctl.sh, cpe_replug.sh),
# started once (python can take seconds to start on a loaded machine):
# one command per stdin line, one reply per stdout line (the value under
# the command's name, as JSON; {"client_error": ...} when it failed).
# Usage: cpe_tel.py SOCKET
#
# cpe_tel.py --storm SOCKET COMMAND SECS MARK: COMMAND back to back until
# the router has gone (the socket closed, and refused or gone when
# connecting again) or SECS pass, for a router stopped under commands
# (cpe_ctl.sh): "ready" after the first reply, at the end one line
# "replies R after_mark A stopped S busy B", A the replies received once
# the file MARK exists (the test's SIGTERM), S and B the "router
# stopped" and "router busy" errors.
import json, os, socket, sys, time


def storm(path, cmd, secs, mark):
    end = time.monotonic() + secs
    n = {"replies": 0, "after_mark": 0, "stopped": 0, "busy": 0}
    while time.monotonic() < end:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.settimeout(10)
        try:
            s.connect(path)
            s.recv(1024)
        except OSError:
            s.close()
            break
        try:
            while time.monotonic() < end:
                s.send(cmd.encode())
                r = s.recv(65536)
                if not r:
                    break
                n["replies"] += 1
                if n["replies"] == 1:
                    print("ready", flush=True)
                if os.path.exists(mark):
                    n["after_mark"] += 1
                r = r.decode(errors="replace")
                if "router stopped" in r:
                    n["stopped"] += 1
                elif "router busy" in r:
                    n["busy"] += 1
        except OSError:
            pass
        finally:
            s.close()
    print(" ".join("%s %d" % kv for kv in n.items()), flush=True)


if sys.argv[1] == "--storm":
    storm(sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5])
    sys.exit(0)
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.settimeout(20)
s.connect(sys.argv[1])
hello = json.loads(s.recv(1024).decode())
print("ready", flush=True)
for line in sys.stdin:
    cmd = line.strip()
    try:
        s.send(cmd.encode())
        r = json.loads(s.recv(hello["max_output_len"]).decode())
        print(json.dumps(r[cmd.split(",")[0]]), flush=True)
    except Exception as e:
        print(json.dumps({"client_error": str(e)}), flush=True)
