#!/usr/bin/env python3
"""`onnxcost probe --calibrate` checked on models it never saw (issue 57):
the 23 torchvision models of docs/results/cpu-zoo-measured.tgz (their measure
results, the graphs ONNX Runtime ran), each predicted node by node from the
one-command spec, beside the probed machine alone; per thread count, the
models within 10 % and 15 % of their summed node time, the median |error|
and the nodes' median |ln(predicted/measured)|.

usage: calibrate_one_command.py ONNXCOST ZOO_DIR SPEC_T2 SPEC_T1
  ZOO_DIR: cpu-zoo-measured.tgz unpacked; SPEC_TN: `onnxcost probe
  --calibrate --threads N -o SPEC_TN` on this machine
"""
import json
import math
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_tables_loo import measured_of  # noqa: E402

B, ZOO, SPECS = sys.argv[1], sys.argv[2], {2: sys.argv[3], 1: sys.argv[4]}


def ev(folder, spec, t, extra=()):
    rows=[]; lns=[]
    for f in sorted(os.listdir(folder)):
        d=json.load(open(os.path.join(folder,f)))
        meas=measured_of(d)
        name=f[:-5]
        g=os.path.join(ZOO, 'graphs', name+'.ort.onnx')
        dims=[]
        for k,v in (d.get('bindings') or {}).items(): dims+=['--dim',f'{k}={v}']
        p=subprocess.run([B,g,*spec,'--threads',str(t),*dims,'--format','json','-q',*extra],capture_output=True,text=True)
        if p.returncode not in (0,4): print('fail',name,p.stderr[-200:]); continue
        doc=json.loads(p.stdout)
        pred={n['name']:(n.get('gpu') or {}).get('time_s') for n in doc['nodes']}
        common=[k for k in meas if pred.get(k)]
        ms=sum(meas[k] for k in common); ps=sum(pred[k] for k in common)
        rows.append((name, ps/ms-1))
        lns += [abs(math.log(pred[k]/meas[k])) for k in common]
    errs=[abs(e) for _,e in rows]
    return len(rows), sum(1 for e in errs if e<=0.10), sum(1 for e in errs if e<=0.15), statistics.median(errs), statistics.median(lns), rows


for t, folder in ((2, os.path.join(ZOO, 'measured')), (1, os.path.join(ZOO, 'measured-1-thread'))):
    for label, spec in (('probed', ['--machine', os.path.join(ZOO, 'machine.json')]), ('one command', ['--gpu-spec', SPECS[t]])):
        n,w10,w15,med,nodemed,rows=ev(folder,spec,t)
        print(f"t{t} {label:12s} {n} models: within 10 % {w10}, within 15 % {w15}, median |error| {100*med:.1f} %, node median |ln| {nodemed:.3f}")
        if label=='one command': print('   worst', sorted(rows,key=lambda r:-abs(r[1]))[:5])
