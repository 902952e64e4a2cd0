"""Clusters: one lock for every node type, built and verified through Slurm.

``model`` (the cluster file: node types with their probes), ``slurm`` (sinfo/srun/salloc/squeue, the only
place that runs Slurm), ``discover`` (node types from ``sinfo``, probed with one job each), ``plan``
(``plan_for_cluster(intent, cluster) -> ClusterPlan``: one tier for the whole cluster when one exists, else
one target per node type), ``build`` (``cluster up``) and ``check`` (``cluster verify``).
"""
