module kubesched.local/lb

go 1.24
