import sys, time, json
from simso.core import Model
from simso.configuration import Configuration

# the FreeRTOS overheads paper Table 1: periods (ms); WCET = 2 % of the period (same as latscope's file).
PERIODS = [("A", 5), ("B", 10), ("C", 15), ("D", 20), ("E", 30), ("F", 40),
           ("G", 23), ("H", 12), ("I", 45), ("J", 50)]
seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
cfg = Configuration()
cfg.cycles_per_ms = 1_000_000  # 1 cycle = 1 ns
cfg.duration = int(seconds * 1000 * cfg.cycles_per_ms)
cfg.scheduler_info.clas = "simso.schedulers.FP"
cfg.task_data_fields["priority"] = "int"
for i, (name, p) in enumerate(PERIODS):
    cfg.add_task(name=name, identifier=i + 1, period=p, activation_date=0,
                 wcet=p * 0.02, deadline=p, data={"priority": 2})
# SimSo has no tick; a constant context-switch cost (1.5 us, the FreeRTOS overheads paper Table 4 minimum).
cfg.add_processor(name="CPU 1", identifier=1, cs_overhead=1500)
cfg.check_all()
model = Model(cfg)
t0 = time.perf_counter()
model.run_model()
wall = time.perf_counter() - t0
jobs = sum(len([j for j in t.jobs if j.end_date is not None]) for t in model.results.tasks.values())
print(json.dumps({"simulated_s": seconds, "wall_s": wall, "jobs": jobs, "jobs_per_s": jobs / wall}))
