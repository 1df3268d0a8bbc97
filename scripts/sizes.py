#!/usr/bin/env python3
"""List source files over 600 lines (tests excluded) and functions over 80 lines.

Issue 20's structure budget. A function may stay longer when the comment block right above
it says why, in a line containing "Long because"; it is then listed apart. Rough by design
(brace matching on indentation, rustfmt's layout assumed).
Usage: scripts/sizes.py [DIR]   (default: crates)
"""
import os,re,sys
root=sys.argv[1] if len(sys.argv)>1 else 'crates'
files=[]
funcs=[]
for d,_,fs in os.walk(root):
    if '/tests' in d or 'target' in d: continue
    for f in fs:
        if not f.endswith('.rs') or f=='tests.rs': continue
        p=os.path.join(d,f)
        if '/src/' not in p: continue
        lines=open(p).read().split('\n')
        n=len(lines)
        for i,l in enumerate(lines):
            if (l.startswith('#[cfg(test)]') or l.startswith('#[cfg(all(test')) and i+1<n and re.match(r'mod \w+ \{',lines[i+1]):
                n=i;break
        files.append((n,p))
        # functions
        i=0
        while i<n:
            m=re.match(r'^(\s*)(pub(\([^)]*\))? )?(const )?(async )?(unsafe )?(extern "C" )?fn (\w+)',lines[i])
            if m:
                ind=m.group(1); name=m.group(8)
                j=i
                while j<n and not lines[j].rstrip().endswith('{') and not lines[j].rstrip().endswith(';'):
                    j+=1
                if j<n and lines[j].rstrip().endswith(';'): i=j+1; continue
                k=j+1
                while k<n and not (lines[k].startswith(ind+'}') and len(lines[k].rstrip())==len(ind)+1):
                    k+=1
                h=i-1
                why=False
                while h>=0 and (lines[h].strip().startswith(('///','//','#['))):
                    why = why or 'Long because' in lines[h]
                    h-=1
                funcs.append((k-i+1,p,name,i+1,why))
                i=k+1; continue
            i+=1
files.sort(reverse=True); funcs.sort(reverse=True)
print("files >600 (non-test lines):")
for n,p in files:
    if n>600: print(n,p)
long=[f for f in funcs if f[0]>80]
print("functions >80 without a stated reason:",sum(1 for f in long if not f[4]))
for f in long:
    if not f[4]: print(*f[:4])
print("functions >80 with a stated reason:",sum(1 for f in long if f[4]))
for f in long:
    if f[4]: print(*f[:4])
