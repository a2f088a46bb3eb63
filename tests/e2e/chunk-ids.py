#!/usr/bin/env python3
# chunk-ids.py DIR: every chunk file under DIR (<hh>/<id>) holds the bytes its name says: its
# sha256-tree-4k id (SHA-256 of the SHA-256 of each 4 KiB leaf and the length, little-endian
# 64 bits) is its name, and it sits under its first two hex digits. Prints each bad file; exit 1.
import hashlib, os, struct, sys

bad = 0
for root, _, files in os.walk(sys.argv[1]):
    for name in files:
        if len(name) != 64 or os.path.basename(root) != name[:2]:
            continue
        data = open(os.path.join(root, name), 'rb').read()
        leaves = b''.join(hashlib.sha256(data[i:i + 4096]).digest() for i in range(0, len(data), 4096))
        if hashlib.sha256(leaves + struct.pack('<Q', len(data))).hexdigest() != name:
            print('not whole:', os.path.join(root, name))
            bad += 1
sys.exit(1 if bad else 0)
