"""The regulator's witness: a small HTTP service that cosigns a station's signed checkpoints
(C2SP ``tlog-witness`` and ``tlog-cosignature``) only when each extends what it cosigned
before, and keeps every refusal as evidence.

- ``wire``: the request and answer formats, shared by the service and its client (pure);
- ``checks``: what a checkpoint must satisfy to be cosigned (pure);
- ``state``: the witness's SQLite state: the latest checkpoint of each origin, the history of
  every checkpoint cosigned, and the refused requests kept whole;
- ``service``: one ``add-checkpoint`` decided and persisted atomically;
- ``server``: the HTTP service (standard library ``http.server``);
- ``client``: submit a checkpoint and read a witness back, with typed answers;
- ``files``: the witness's folder: its key, its public key and its state.
"""
