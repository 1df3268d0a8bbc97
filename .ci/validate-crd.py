"""Validates custom resources against their CRD's openAPIV3Schema (kubernetes-validate knows only
the built-in kinds). Strict like `kubernetes-validate --strict`: a field the schema does not
declare is an error (the API server would prune it silently), except where the schema allows
unknown fields (x-kubernetes-preserve-unknown-fields, additionalProperties).
Usage: validate-crd.py CRD.yaml[,CRD.yaml...] MANIFEST.yaml...   Resources of kinds no CRD
defines are skipped; at least one resource of a CRD's kind must be found in all.
"""
import sys

import jsonschema
import yaml


def strict(schema):
    if isinstance(schema, dict):
        if "properties" in schema and "additionalProperties" not in schema \
                and not schema.get("x-kubernetes-preserve-unknown-fields"):
            schema["additionalProperties"] = False
        for v in schema.values():
            strict(v)
    elif isinstance(schema, list):
        for v in schema:
            strict(v)
    return schema


def main():
    # kind -> (CRD path, {apiVersion: schema})
    kinds = {}
    for crd_path in sys.argv[1].split(","):
        with open(crd_path) as f:
            crd = next(d for d in yaml.safe_load_all(f) if d)
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        kinds[kind] = (crd_path, {f"{group}/{v['name']}": strict(v["schema"]["openAPIV3Schema"])
                                  for v in crd["spec"]["versions"]})
    checked, failed = 0, 0
    for path in sys.argv[2:]:
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if d]
        for d in docs:
            kind = d.get("kind")
            if kind not in kinds:
                continue
            crd_path, schemas = kinds[kind]
            schema = schemas.get(d.get("apiVersion"))
            name = f"{path}: {kind} {d.get('metadata', {}).get('name')}"
            if schema is None:
                print(f"ERROR {name}: apiVersion {d.get('apiVersion')} is not served by the CRD")
                failed += 1
                continue
            errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(d), key=str)
            for e in errors:
                print(f"ERROR {name}: {'.'.join(map(str, e.absolute_path))}: {e.message}")
            failed += bool(errors)
            checked += 1
            if not errors:
                print(f"INFO {name} passed against {crd_path}")
    if checked == 0:
        print(f"ERROR no {' or '.join(kinds)} found in {sys.argv[2:]}")
        failed += 1
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
