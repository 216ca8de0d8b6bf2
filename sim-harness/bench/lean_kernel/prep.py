#!/usr/bin/env python3
# Converts an ibnetdiscover net file + guid2lid + `ibunion route` LFT/paths output
# into the flat binary fabric file lean.cc reads.
import sys, struct, re, array
net, g2l, lft, paths, out = sys.argv[1:6]
sw_names, host_names = [], []
ports = {}  # name -> list of (port, peername, peerport)
cur = None
radix = 0
for line in open(net):
    line = line.rstrip('\n')
    if line.startswith('Switch') or line.startswith('Hca') or line.startswith('Ca'):
        m = re.match(r'(\w+)\s+(\d+)\s+"([^"]+)"', line)
        kind, n, name = m.group(1), int(m.group(2)), m.group(3)
        cur = name
        ports[name] = []
        if kind == 'Switch':
            sw_names.append(name); radix = max(radix, n)
        else:
            host_names.append(name)
    elif line.startswith('['):
        m = re.match(r'\[(\d+)\]\s+"([^"]+)"\[(\d+)\]', line)
        ports[cur].append((int(m.group(1)), m.group(2), int(m.group(3))))
NS, H, R = len(sw_names), len(host_names), radix
sidx = {n: i for i, n in enumerate(sw_names)}
hidx = {n: i for i, n in enumerate(host_names)}
def gp(name, port):
    if name in sidx: return sidx[name] * R + port - 1
    return NS * R + hidx[name]
sw_peer = array.array('i', [-1] * (NS * R))
for n in sw_names:
    for p, pn, pp in ports[n]:
        sw_peer[sidx[n] * R + p - 1] = gp(pn, pp)
host_peer = array.array('i', [0] * H)
for n in host_names:
    (p, pn, pp), = ports[n]
    host_peer[hidx[n]] = gp(pn, pp)
# host port GUIDs and names from the LFT comments, LIDs from guid2lid
guid_lids = {}
for line in open(g2l):
    f = line.split()
    if len(f) == 3: guid_lids[int(f[0], 16)] = (int(f[1], 16), int(f[2], 16))
guid_host = {}
NL = 0
lft_tab = None
s = -1
rx = re.compile(r"portguid (0x[0-9a-f]+): '([^']+)'")
with open(lft) as fh:
    for line in fh:
        c = line[0]
        if c == '0':
            if s == 0 and 'Channel Adapter' in line:
                m = rx.search(line)
                guid_host[int(m.group(1), 16)] = hidx[m.group(2)]
            lid = int(line[0:6], 16); port = int(line[7:10])
            lft_tab[s * NL + lid] = port
        elif c == 'U':
            m = re.match(r'Unicast lids \[0x0-0x([0-9a-f]+)\] of switch .*? \((.*)\):\s*$', line)
            if lft_tab is None:
                NL = int(m.group(1), 16) + 1
                lft_tab = bytearray(b'\xff' * (NS * NL))
            s = sidx[m.group(2)]
host_base = array.array('H', [0] * H); host_cnt = array.array('H', [0] * H)
for g, h in guid_host.items():
    lo, hi = guid_lids[g]; host_base[h] = lo; host_cnt[h] = hi - lo + 1
dl = array.array('H', [0] * (H * H))
for line in open(paths):
    a, b, d = line.split()
    dl[guid_host[int(a, 16)] * H + guid_host[int(b, 16)]] = int(d)
with open(out, 'wb') as o:
    o.write(struct.pack('<4I', NS, R, H, NL))
    o.write(sw_peer.tobytes()); o.write(host_peer.tobytes())
    o.write(host_base.tobytes()); o.write(host_cnt.tobytes())
    o.write(bytes(lft_tab)); o.write(dl.tobytes())
print(f'{out}: {NS} switches radix {R}, {H} hosts, {NL} LIDs, {len(guid_host)} host guids')
