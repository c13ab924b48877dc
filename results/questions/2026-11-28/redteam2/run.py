from vrs.questions import read_question, UnsupportedQuestion
lines=[l.rstrip('\n') for l in open('/tmp/rt2/probes.txt')]
out=open('/tmp/rt2/results.tsv','w')
for i,s in enumerate(lines,1):
    try:
        q=read_question(s); r=f"{q.template} {dict(q.params)}"
    except UnsupportedQuestion as e:
        r="REFUSED"
    out.write(f"{i}\t{s}\t{r}\n")
out.close()
