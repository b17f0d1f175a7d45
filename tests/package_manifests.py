#!/usr/bin/env python3
"""The package managers' manifests that scripts/package-windows.sh wrote into DIST, checked:
each against its schema (packaging/schemas), and all of them against the release zip they
describe (version, URL, sha256, the exe they name). Then each check is shown to fail: a manifest
with a wrong hash, a missing field or a field that does not exist is refused.

Usage: package_manifests.py DIST VERSION
"""
import copy, hashlib, json, os, sys, zipfile

import jsonschema
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMAS = os.path.join(ROOT, "packaging", "schemas")
PACKAGE_ID = "cudnn-install.cudnn-install"
failures = []


def check(name, ok, detail=""):
    print(("ok: " if ok else "FAIL: ") + name + ("" if ok or not detail else f": {detail}"))
    if not ok:
        failures.append(name)


def schema_errors(doc, schema_file):
    schema = json.load(open(os.path.join(SCHEMAS, schema_file)))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in validator.iter_errors(doc)]


def main():
    dist, version = sys.argv[1], sys.argv[2]
    zip_name = f"cudnn-install-{version}-windows-x86_64.zip"
    zip_path = os.path.join(dist, zip_name)
    sha = hashlib.sha256(open(zip_path, "rb").read()).hexdigest()
    members = set(zipfile.ZipFile(zip_path).namelist())

    # Scoop
    scoop = json.load(open(os.path.join(dist, "scoop", "cudnn-install.json")))
    errors = schema_errors(scoop, "scoop.schema.json")
    check("scoop: valid against its schema", not errors, "; ".join(errors))
    arch = scoop.get("architecture", {}).get("64bit", {})
    url = arch.get("url", "")
    check("scoop: the version", scoop.get("version") == version, scoop.get("version"))
    check("scoop: the URL names the zip", url.endswith(f"/v{version}/{zip_name}"), url)
    check("scoop: the sha256 is the zip's", arch.get("hash") == sha, arch.get("hash"))
    check("scoop: bin is the exe in the zip", scoop.get("bin") in members, scoop.get("bin"))
    auto = scoop.get("autoupdate", {}).get("architecture", {}).get("64bit", {}).get("url", "")
    check("scoop: autoupdate's URL pattern gives this release's URL", auto.replace("$version", version) == url, auto)

    # winget: the three files of a multi-file manifest, where winget-pkgs keeps them
    wdir = os.path.join(dist, "winget", "manifests", "c", "cudnn-install", "cudnn-install", version)
    docs = {}
    for kind, name, schema in [("version", f"{PACKAGE_ID}.yaml", "winget.version.1.6.0.schema.json"),
                               ("installer", f"{PACKAGE_ID}.installer.yaml", "winget.installer.1.6.0.schema.json"),
                               ("defaultLocale", f"{PACKAGE_ID}.locale.en-US.yaml",
                                "winget.defaultLocale.1.6.0.schema.json")]:
        path = os.path.join(wdir, name)
        check(f"winget: {name} exists", os.path.isfile(path))
        if not os.path.isfile(path):
            continue
        doc = yaml.safe_load(open(path))
        docs[kind] = (doc, schema)
        errors = schema_errors(doc, schema)
        check(f"winget: {name} valid against its 1.6.0 schema", not errors, "; ".join(errors))
        check(f"winget: {name} is a {kind} manifest", doc.get("ManifestType") == kind, doc.get("ManifestType"))
        check(f"winget: {name} names the package and version",
              doc.get("PackageIdentifier") == PACKAGE_ID and doc.get("PackageVersion") == version,
              f"{doc.get('PackageIdentifier')} {doc.get('PackageVersion')}")
    if len(docs) == 3:
        inst = docs["installer"][0]
        installer = inst["Installers"][0]
        check("winget: the installer URL is scoop's", installer["InstallerUrl"] == url, installer["InstallerUrl"])
        check("winget: the sha256 is the zip's", installer["InstallerSha256"].lower() == sha, installer["InstallerSha256"])
        nested = inst.get("NestedInstallerFiles") or installer.get("NestedInstallerFiles") or []
        check("winget: the portable exe is in the zip", [f["RelativeFilePath"] for f in nested] == ["cudnn-install.exe"]
              and "cudnn-install.exe" in members, str(nested))
        check("winget: the default locale has its manifest",
              docs["version"][0]["DefaultLocale"] == docs["defaultLocale"][0]["PackageLocale"])

        # The checks can fail: broken copies are refused.
        broken = copy.deepcopy(inst)
        broken["Installers"][0]["InstallerSha256"] = "not-a-sha"
        check("a broken winget installer (bad sha256) is refused", bool(schema_errors(broken, docs["installer"][1])))
        broken = copy.deepcopy(docs["defaultLocale"][0])
        del broken["License"]
        check("a broken winget locale (no License) is refused", bool(schema_errors(broken, docs["defaultLocale"][1])))
    broken = copy.deepcopy(scoop)
    broken["architecture"]["64bit"]["hahs"] = sha
    check("a broken scoop manifest (an unknown field) is refused", bool(schema_errors(broken, "scoop.schema.json")))

    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
