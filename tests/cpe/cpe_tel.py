# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# A telemetry client for the cpe tests (cpe_ctl.sh, cpe_replug.sh),
# started once (python can take seconds to start on a loaded machine):
# one command per stdin line, one reply per stdout line (the value under
# the command's name, as JSON; {"client_error": ...} when it failed).
# Usage: cpe_tel.py SOCKET
import json, socket, sys
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
